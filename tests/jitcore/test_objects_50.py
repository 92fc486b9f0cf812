"""Objects of the user's classes at native speed (session 50): a call whose arguments hold a
plain object, a dataclass or a ``types.SimpleNamespace`` (nested ones too) takes the call memo,
keyed by the class, the attribute names and each attribute's signature, and leaves the caller's
objects as Python would; writes through nested objects in compiled loops (``s.grid.u = ...``).
Each test compares with the same code run by Python and NumPy."""

import dataclasses
import types

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc


class State:
    def __init__(self, u, v, w):
        self.u, self.v, self.w = u, v, w


@dataclasses.dataclass
class Heat:
    u: np.ndarray
    dt: float
    t: float = 0.0
    steps: int = 0
    scheme: str = "central"


class Grid:
    def __init__(self, u):
        self.u = u


class Cfg:
    def __init__(self, dt):
        self.dt = dt


class Sim:
    def __init__(self, u, dt=0.1):
        self.grid = Grid(u)
        self.cfg = Cfg(dt)
        self.t = 0.0


def combine(s):
    return s.u + s.v * s.w


def heat_step(h):
    lap = np.roll(h.u, 1) - 2 * h.u + np.roll(h.u, -1)
    h.u = h.u + h.dt * lap if h.scheme == "central" else h.u - h.dt * lap
    h.t += h.dt
    h.steps += 1
    return h.t


def bump_in_place(s):
    s.u[1:] += s.v[1:]
    return s.w.sum()


def nested_step(s):
    s.grid.u = s.grid.u * 0.5 + s.cfg.dt
    s.t += s.cfg.dt
    return s.grid.u.sum()


JITTED = {f: jc.jit(f) for f in (combine, heat_step, bump_in_place, nested_step)}


def _same(a, b, seen=None):
    if isinstance(a, np.ndarray):
        return isinstance(b, np.ndarray) and a.dtype == b.dtype and a.shape == b.shape and np.array_equal(
            a, b, equal_nan=True)
    if hasattr(a, "__dict__"):
        return type(a) is type(b) and list(vars(a)) == list(vars(b)) and all(
            _same(v, vars(b)[k]) for k, v in vars(a).items())
    return type(a) is type(b) and (a == b or a != a and b != b)


def _both(fn, make, calls=3):
    """``fn`` called ``calls`` times on an object ``make()`` gives, by Python and jitted: equal
    results and equal objects after each call."""
    plain, jitted = make(), make()
    for _ in range(calls):
        want, got = fn(plain), JITTED[fn](jitted)
        assert _same(got, want)
        assert _same(jitted, plain)
    return plain, jitted


DTYPES = st.sampled_from([np.float64, np.float32, np.int64, np.int32])


@given(n=st.integers(1, 40), dtypes=st.tuples(DTYPES, DTYPES, DTYPES))
@settings(max_examples=25, deadline=None)
def test_object_of_arrays_results_and_dtypes(n, dtypes):
    rng = np.random.default_rng(n)
    arrays = [rng.integers(-5, 5, n).astype(d) for d in dtypes]
    _both(combine, lambda: State(*(a.copy() for a in arrays)))


def test_object_calls_take_the_memo_and_read_each_calls_arrays():
    f = jc.jit(combine)
    s = State(np.ones(5), np.arange(5.0), np.full(5, 2.0))
    for k in range(6):
        s.v = np.arange(5.0) * k  # rebound between calls: read anew
        s.w[0] = k  # written in place between calls: read anew
        assert _same(f(s), combine(s))
    assert f.cache_info().traces == 1
    assert len(f._memo) == 1  # the cached calls went through the memo of the call's structure


def test_memo_key_holds_each_fields_dtype_and_shape():
    f = jc.jit(combine)
    s = State(np.ones(4), np.ones(4), np.ones(4))
    f(s), f(s)
    for changed in (State(np.ones(4), np.ones(4, np.float32), np.ones(4)),
                    State(np.ones(4), np.ones(4), np.ones(4, np.int32)),
                    State(np.ones(5), np.ones(5), np.ones(5)),
                    State(np.ones(4), np.ones((2, 4)), np.ones(4)),
                    State(np.ones(4), np.ones(8)[::2], np.ones(4))):
        for _ in range(2):
            assert _same(f(changed), combine(changed))


def test_memo_key_holds_names_order_and_class():
    f = jc.jit(lambda s: s.u - 2 * getattr(s, "v", 0))

    class Other(State):
        pass

    a = State(np.ones(3), np.arange(3.0), np.zeros(3))
    b = State(np.ones(3), np.arange(3.0), np.zeros(3))
    b.__dict__ = {"v": b.v, "u": b.u, "w": b.w}  # the same names in another order
    c = Other(np.ones(3), np.arange(3.0), np.zeros(3))
    d = types.SimpleNamespace(u=np.ones(3), w=np.zeros(3))
    for s in (a, b, c, d, a, b, c, d):
        assert _same(f(s), s.u - 2 * getattr(s, "v", 0))


@given(n=st.integers(2, 20), dt=st.sampled_from([1e-3, 0.01, 0.1]), t0=st.floats(-5, 5),
       steps=st.integers(-3, 3), scheme=st.sampled_from(["central", "upwind"]))
@settings(max_examples=15, deadline=None)
def test_dataclass_rebinding_through_the_memo(n, dt, t0, steps, scheme):
    u = np.random.default_rng(n).standard_normal(n)
    _both(heat_step, lambda: Heat(u.copy(), dt, t0, steps, scheme), calls=4)


def test_static_string_attribute_changes_compile_anew():
    f = jc.jit(heat_step)
    h = Heat(np.linspace(0, 1, 6), 0.1)
    p = Heat(np.linspace(0, 1, 6), 0.1)
    for scheme in ("central", "central", "upwind", "upwind", "central"):
        h.scheme = p.scheme = scheme
        assert _same(f(h), heat_step(p))
        assert _same(h, p)
    assert f.cache_info().traces == 2


def test_numbers_traced_with_their_type():
    f = jc.jit(lambda s: s.u * s.k)
    for k in (2, 3, 2.5, True, np.float32(0.5), 1 + 2j, 7):
        s = types.SimpleNamespace(u=np.arange(3, dtype=np.float32), k=k)
        assert _same(f(s), s.u * s.k)


def test_in_place_writes_keep_the_callers_arrays():
    u = np.arange(4.0)
    s = State(u, np.ones(4), np.ones(4))
    p = State(u.copy(), np.ones(4), np.ones(4))
    for _ in range(3):
        assert _same(JITTED[bump_in_place](s), bump_in_place(p))
        assert s.u is u and _same(s, p)


def test_two_attributes_holding_one_array():
    def rebind(s):
        s.u = s.u + 1.0  # s.v still holds the old array, as in Python
        return s.v[0] + s.u[0]

    def write(s):
        s.u[0] += 1.0
        return s.v[0] + s.w.sum()

    jf = jc.jit(rebind)
    for _ in range(3):
        a, a2 = np.zeros(3), np.zeros(3)
        s, p = State(a, a, np.ones(2)), State(a2, a2, np.ones(2))
        for _ in range(3):
            assert _same(jf(s), rebind(p))
            assert s.v is a and _same(s, p)
    # written in place through one name and read through the other: compiled with the array
    # passed once, so both names see the write, as in NumPy
    jw = jc.jit(write)
    for _ in range(3):
        a, a2 = np.zeros(3), np.zeros(3)
        s, p = State(a, a, np.ones(2)), State(a2, a2, np.ones(2))
        for _ in range(2):
            assert _same(jw(s), write(p))
            assert s.u is s.v is a and _same(s, p)
    separate = State(np.zeros(3), np.zeros(3), np.ones(2))  # and separate arrays still apart
    separate2 = State(np.zeros(3), np.zeros(3), np.ones(2))
    assert _same(jw(separate), write(separate2)) and _same(separate, separate2)


def test_one_array_passed_twice_and_written():
    def f(x, y):
        x[0] += 1.0
        return y[0] * 2

    jf = jc.jit(f)
    for _ in range(3):
        a, b = np.zeros(3), np.zeros(3)
        assert _same(jf(a, a), f(b, b)) and _same(a, b)
    a, b, a2, b2 = np.zeros(3), np.zeros(3), np.zeros(3), np.zeros(3)
    assert _same(jf(a, b), f(a2, b2)) and _same(a, a2) and _same(b, b2)
    with pytest.raises(jc.JitTypeError, match="shares memory"):  # a view: still refused
        jf(a, a[:])


def test_simple_namespace_rebinding():
    def f(s):
        s.t = s.t + 1.0
        s.u = s.u * 2
        return s.u.sum()

    jf = jc.jit(f)
    s, p = (types.SimpleNamespace(u=np.ones(3), t=0.0, name="a") for _ in range(2))
    for _ in range(4):
        assert _same(jf(s), f(p))
        assert type(s) is types.SimpleNamespace and _same(s, p)


def test_nested_object_through_the_memo():
    _both(nested_step, lambda: Sim(np.arange(5.0)), calls=4)
    s = Sim(np.arange(5.0))
    grid = s.grid
    JITTED[nested_step](s)
    assert s.grid is grid  # the caller's nested object, its attribute set


def test_object_beside_arrays_and_keywords():
    def f(x, s, scale=1.0):
        return x * scale + s.u

    jf = jc.jit(f)
    s = State(np.ones(3), None, "label")
    for k in range(3):
        assert _same(jf(np.arange(3.0), s, scale=k + 0.5), f(np.arange(3.0), s, scale=k + 0.5))
        assert _same(jf(np.arange(3.0), s), f(np.arange(3.0), s))


def test_error_raised_mid_call_by_compiled_code():
    def f(s, i):
        s.u[0] = 5.0
        return s.u[i]

    jf = jc.jit(f)
    s = State(np.zeros(3), np.zeros(3), np.zeros(3))
    jf(s, 1), jf(s, 1)
    p = State(np.zeros(3), np.zeros(3), np.zeros(3))
    with pytest.raises(IndexError):
        f(p, 7)
    with pytest.raises(IndexError):
        jf(s, 7)
    assert _same(s, p)


# -- writes through nested objects in compiled loops, jitted methods holding objects ----------


def relax(s, k):
    for _ in range(k):
        s.grid.u = s.grid.u * 0.5 + 1
        s.t += s.cfg.dt
    return s.grid.u.sum()


def smooth(s, k):
    for _ in range(k):
        s.grid.u[1:-1] += s.cfg.dt * (s.grid.u[:-2] - s.grid.u[1:-1])
    return s.grid.u[0] + s.t


class Model:
    def __init__(self, u, dt=0.25):
        self.grid = Grid(u)
        self.cfg = Cfg(dt)
        self.steps = 0

    def advance(self, k):
        for _ in range(k):
            self.grid.u = self.grid.u + self.cfg.dt * np.roll(self.grid.u, 1)
            self.steps += 1
        return self.grid.u.mean()

    def total(self):
        return self.grid.u.sum() * self.cfg.dt


Model.jadvance = jc.jit(Model.advance)
Model.jtotal = jc.jit(Model.total)
JITTED.update({f: jc.jit(f) for f in (relax, smooth)})


@given(n=st.integers(3, 20), k=st.integers(0, 6), dt=st.sampled_from([0.0, 0.1, 0.5]))
@settings(max_examples=20, deadline=None)
def test_nested_attribute_rebound_in_a_loop(n, k, dt):
    u = np.random.default_rng(n).standard_normal(n)
    for fn in (relax, smooth):
        plain, jitted = Sim(u.copy(), dt), Sim(u.copy(), dt)
        grid, cfg = jitted.grid, jitted.cfg
        for _ in range(2):
            assert _same(JITTED[fn](jitted, k), fn(plain, k))
            assert _same(jitted, plain)
            assert jitted.grid is grid and jitted.cfg is cfg  # the caller's nested objects, set


def test_nested_write_in_loop_keeps_an_aliased_holder_as_python_does():
    u, u2 = np.arange(4.0), np.arange(4.0)
    s, p = Sim(u), Sim(u2)
    s.before, p.before = u, u2  # a second attribute holding the same array
    for _ in range(2):
        assert _same(JITTED[relax](s, 3), relax(p, 3))
        assert _same(s, p) and s.before is u and s.grid.u is not u  # rebound: the old array kept
    smoothed, smoothed2 = Sim(np.arange(5.0)), Sim(np.arange(5.0))
    held, held2 = smoothed.grid.u, smoothed2.grid.u
    smoothed.copy, smoothed2.copy = Grid(held), Grid(held2)  # two objects holding one array
    JITTED[smooth](smoothed, 2), smooth(smoothed2, 2)
    assert smoothed.grid.u is held and smoothed.copy.u is held and _same(smoothed, smoothed2)


def test_method_rebinding_through_nested_objects_called_twice():
    u = np.linspace(0, 1, 7)
    plain, jitted = Model(u.copy()), Model(u.copy())
    grid = jitted.grid
    for k in (3, 0, 2, 2):
        assert _same(jitted.jadvance(k), plain.advance(k))
        assert _same(jitted, plain) and jitted.grid is grid
        assert type(jitted.steps) is int


def test_method_reads_nested_arrays_at_each_call():
    m = Model(np.ones(4))
    assert m.jtotal() == m.total()
    m.grid.u = np.arange(4.0)  # rebound between calls: read anew, not a constant of the trace
    m.cfg.dt = 0.5
    assert m.jtotal() == m.total() == 3.0
    m.grid.u[0] = 10.0
    assert m.jtotal() == m.total()


def test_exception_after_assignments_says_they_were_not_made():
    def f(s, k, i):
        for _ in range(k):
            s.grid.u = s.grid.u * 0.5 + 1
        return s.grid.u[i]

    jf = jc.jit(f)
    s = Sim(np.arange(4.0))
    jf(s, 2, 1)
    before = s.grid.u.copy()
    with pytest.raises(IndexError) as info:
        jf(s, 2, 9)
    assert _same(s.grid.u, before)  # not assigned: the compiled code raised before returning
    assert any("hold what they held before the call" in n for n in info.value.__notes__)


def test_an_object_holding_itself_is_refused_by_name():
    def f(s):
        return s.grid.u * 2

    s = Sim(np.ones(3))
    s.grid.owner = s
    with pytest.raises(jc.JitTypeError, match="holds itself"):
        jc.jit(f)(s)
    m = Model(np.ones(3))
    m.grid.owner = m  # a method's attribute: static, read while tracing, as before
    assert m.jtotal() == m.total()


def test_method_writing_a_nested_attribute_each_call():
    class Plain:
        def __init__(self, n):
            self.grid = Grid(np.ones(n))
            self.steps = 0

        def step(self):
            self.grid.u = self.grid.u * 0.5 + 1.0
            self.steps += 1
            return self.steps

    Plain.jstep = jc.jit(Plain.step)
    m, p = Plain(4), Plain(4)
    for _ in range(3):  # (it kept the first call's grid.u: the trace's constant)
        assert _same(m.jstep(), p.step())
        assert _same(m, p)


class Sized:
    def __init__(self, n, dt):
        self.cfg = types.SimpleNamespace(n=n, dt=dt)
        self.u = np.ones(8)

    def make(self):
        out = np.zeros(self.cfg.n)
        for i in range(self.cfg.n):
            out[i] = self.u[i] * self.cfg.dt
        return out


Sized.jmake = jc.jit(Sized.make)


def test_an_objects_int_needed_as_a_value_is_keyed_by_value():
    # (it made the whole object static, by identity: later calls kept its first dt and n)
    def f(s):
        return np.zeros(s.cfg.n) + s.cfg.dt

    jf = jc.jit(f)
    s = Sized(5, 0.1)
    for n, dt in ((5, 0.1), (5, 0.3), (3, 0.3), (5, 0.5), (3, -1.0)):
        s.cfg.n, s.cfg.dt = n, dt
        assert _same(jf(s), f(s))
        assert _same(s.jmake(), s.make())
    assert jf.cache_info().traces <= 3  # one per n (and the first, which found n needed)
