"""Jitted methods on the native call (``jitcore.method_calls``): ``obj.method(x)`` as a flat call
of the instance's attributes, matched in native code. The oracle is the same method not jitted,
called on the same object: every change of an attribute between calls (an array's data, an
array rebound, a number, a class constant, an item of a list) gives Python's answer, never the
code compiled for the old value; equal states share code; exact reference counts."""

import sys
import threading

import numpy as np
import pytest

import jitcore as jc
from jitcore import native_call
from jitcore.api import python_call
from tests.jitcore.test_threads import run_threads

pytestmark = pytest.mark.skipif(not native_call.AVAILABLE, reason="no native call on this Python/NumPy")


class Layer:
    BIAS = 1.0  # a class constant the method reads as self.BIAS

    def __init__(self, scale=2.0):
        self.scale = scale
        self.w = np.linspace(0.0, 1.0, 6, dtype=np.float32)
        self.power = 1
        self.mode = "add"
        self.offsets = 0.5  # a list in test_a_list_item_changed_gives_pythons_answer
        self.missing = None

    def raw(self, x):
        y = x * self.scale + self.w ** self.power + self.BIAS
        if self.mode == "add":
            y = y + (self.offsets[0] if isinstance(self.offsets, list) else self.offsets)
        if self.missing is not None:
            y = y * self.missing
        return y

    apply = jc.jit(raw)

    @jc.jit
    @classmethod
    def shifted(cls, x):
        return x + cls.BIAS


X = np.linspace(-1.0, 1.0, 6, dtype=np.float32)


@pytest.fixture(autouse=True)
def fresh_tables():
    """Each test's signatures from an empty cache: the native table holds 8 per function."""
    Layer().apply.clear_cache()


def twin(bound):
    """The jitted function a bound jitted method calls (whose table the native call reads)."""
    return bound.func


def native_calls(bound) -> int:
    return twin(bound)._native_hits.value


def expect_python(layer: Layer, calls: int = 3) -> int:
    """Call ``layer.apply`` ``calls`` times, each result the raw method's; the native calls."""
    before = native_calls(layer.apply)
    for _ in range(calls):
        got, expected = layer.apply(X), layer.raw(X)
        assert type(got) is type(expected) and got.dtype == expected.dtype
        np.testing.assert_array_equal(got, expected)
    return native_calls(layer.apply) - before


def test_a_jitted_method_is_called_natively():
    layer = Layer()
    start = layer.apply.cache_info()
    expect_python(layer, 2)  # compiled, then the second call gives it to the native call
    assert expect_python(layer, 5) == 5
    info = layer.apply.cache_info()
    assert (info.hits - start.hits, info.misses - start.misses, info.compiles - start.compiles) == (6, 1, 1)
    np.testing.assert_array_equal(python_call(twin(layer.apply), layer, X), layer.raw(X))  # the Python path


def change_w_in_place(layer):
    layer.w[:3] = 7.0


def rebind_w(layer):
    layer.w = np.full(6, -2.0, np.float32)


def rebind_w_float64(layer):
    layer.w = np.full(6, 0.5, np.float64)


def rebind_w_strided(layer):
    layer.w = np.linspace(0.0, 5.0, 12, dtype=np.float32)[::2]


def set_scale(value):
    return lambda layer: setattr(layer, "scale", value)


def set_class_bias(layer):
    type(layer).BIAS = 3.0


def add_attribute(layer):
    layer.unused = 1.0


def remove_attribute(layer):
    del layer.mode
    layer.mode = "mul"  # back, at the end of the dict: another order, another value


def change_none(layer):
    layer.missing = 2.0


CHANGES = {
    "array written in place": change_w_in_place,
    "array rebound": rebind_w,
    "array rebound to float64": rebind_w_float64,
    "array rebound to a strided view": rebind_w_strided,
    "float changed": set_scale(3.0),
    "float 0.0 to -0.0": set_scale(-0.0),
    "float to int": set_scale(2),
    "int exponent changed": lambda layer: setattr(layer, "power", 2),
    "string changed": lambda layer: setattr(layer, "mode", "none"),
    "class constant changed": set_class_bias,
    "class constant shadowed by the instance's": lambda layer: setattr(layer, "BIAS", 5.0),
    "attribute added": add_attribute,
    "attribute removed and set again": remove_attribute,
    "None set to a number": change_none,
}


@pytest.mark.parametrize("change", CHANGES, ids=list(CHANGES))
def test_a_changed_attribute_gives_pythons_answer(change, monkeypatch):
    monkeypatch.setattr(Layer, "BIAS", Layer.BIAS)  # restored after the test
    layer = Layer(0.0)
    expect_python(layer)
    CHANGES[change](layer)
    expect_python(layer)
    assert expect_python(layer, 2) == 2


def test_a_list_item_changed_gives_pythons_answer():
    layer = Layer()
    layer.offsets = [0.5, -0.25]  # keyed by its contents (a snapshot on each call): the Python path
    expect_python(layer)
    layer.offsets[0] = 9.0
    expect_python(layer)
    layer.offsets.insert(0, -3.0)
    expect_python(layer)
    layer.offsets[0] = -0.0  # by bits, as a static number: -0.0 is not 0.0
    expect_python(layer)
    layer.offsets[0] = 0.0
    expect_python(layer)


def test_equal_states_share_code_and_changes_back_reuse_it():
    a, b = Layer(2.0), Layer(2.0)
    expect_python(a)
    compiles = a.apply.cache_info().compiles
    assert expect_python(b) == 3  # an equal instance: the same entry
    a.scale = 5.0
    expect_python(a)
    a.scale = 2.0  # an equal float, another object: matched by value
    assert expect_python(a) == 3
    assert a.apply.cache_info().compiles == compiles + 1


def test_instances_of_other_classes_alternate_correctly():
    class Wider(Layer):
        BIAS = -4.0

    a, b = Layer(), Wider()
    for _ in range(3):
        for layer in (a, b, b, a):
            np.testing.assert_array_equal(layer.apply(X), layer.raw(X))
    assert native_calls(a.apply) > 0


def test_a_subclass_overriding_a_helper_runs_its_own_code():
    class Base:
        def __init__(self):
            self.w = np.ones(6, np.float32)

        def helper(self, x):
            return x + self.w

        @jc.jit
        def apply(self, x):
            return self.helper(x) * 2

    class Sub(Base):
        def helper(self, x):  # the same attributes, other code
            return x - self.w

    base, sub = Base(), Sub()
    for _ in range(3):
        for obj in (base, base, sub, sub, base):
            np.testing.assert_array_equal(obj.apply(X), obj.helper(X) * 2)


def tanh(v):
    return np.tanh(v)


def sin(v):
    return np.sin(v)


def test_a_helper_patched_on_the_class_and_a_property_are_seen():
    class Model:
        GAIN = 2.0

        def __init__(self):
            self.act = tanh  # an instance's function: static, by identity

        def helper(self, x):
            return x + 1

        @property
        def gain(self):
            return self.GAIN  # a class constant read through a property

        @jc.jit
        def apply(self, x):
            return self.act(self.helper(x)) * self.gain

    m = Model()
    expected = lambda: tanh(m.helper(X)) * Model.GAIN  # noqa: E731
    for change in (None, "helper", "gain", "act"):
        if change == "helper":
            Model.helper = lambda self, x: x - 1
        elif change == "gain":
            Model.GAIN = -3.0
        elif change == "act":
            m.act = sin
            expected = lambda: sin(m.helper(X)) * Model.GAIN  # noqa: E731
        before = native_calls(m.apply)
        for _ in range(3):
            np.testing.assert_allclose(m.apply(X), expected(), rtol=1e-6)
        assert native_calls(m.apply) > before


def test_layouts_made_on_the_fly_are_bounded():
    class Bag:
        @jc.jit(max_signatures=3)
        def total(self, x):
            return x + sum(vars(self).values())

    for k in range(6):  # a new attribute name each time: a new layout, a new flat twin
        bag = Bag()
        setattr(bag, f"a{k}", float(k))
        np.testing.assert_array_equal(bag.total(X), X + k)
    assert len(twin(bag.total)._flats) == 3


def test_odd_attributes_keep_pythons_semantics():
    layer = Layer()
    setattr(layer, "not an identifier", 4)  # noqa: B010
    layer.mixed = [np.ones(2), 3.0]  # neither arrays nor plain values: by identity
    expect_python(layer)
    layer.pair = (1.0, 2.0)  # a tuple: by value
    expect_python(layer)


def test_errors_are_those_of_the_python_method():
    layer = Layer()
    expect_python(layer)
    for args in [(), (X, X)]:
        with pytest.raises(TypeError) as raw:
            layer.raw(*args)
        with pytest.raises(TypeError) as jitted:
            layer.apply(*args)
        assert str(jitted.value) == str(raw.value)
    with pytest.raises(TypeError, match="unexpected keyword argument 'z'"):
        layer.apply(X, z=1)
    layer.w = np.ones(5, np.float32)
    with pytest.raises(jc.JitValueError, match="do not broadcast"):
        layer.apply(X)


def test_reference_counts_are_unchanged():
    layer = Layer()
    expect_python(layer)
    w, scale = layer.w, layer.scale
    counts = [sys.getrefcount(v) for v in (layer, w, scale, X)]
    before = native_calls(layer.apply)
    for _ in range(200):
        out = layer.apply(X)
    assert native_calls(layer.apply) == before + 200
    assert sys.getrefcount(out) == 2
    del out
    assert [sys.getrefcount(v) for v in (layer, w, scale, X)] == counts


def test_a_rebinding_thread_never_crashes_a_call():
    layer = Layer()
    expect_python(layer)
    arrays = [np.full(6, v, np.float32) for v in (1.0, 2.0)]
    layer.offsets, layer.BIAS = [0.0], 0.0
    expect_python(layer)
    stop = threading.Event()

    def rebind():
        while not stop.is_set():
            for a in arrays:
                layer.w = a

    rebinder = threading.Thread(target=rebind)
    rebinder.start()
    try:
        seen = run_threads(lambda _: [float(layer.apply(X)[0] - X[0] * 2.0) for _ in range(300)], 2)
    finally:
        stop.set()
        rebinder.join()
    assert not [r for r in seen if isinstance(r, BaseException)]
    assert {v for values in seen for v in values} <= {1.0, 2.0}  # one array or the other, whole


def test_a_write_into_an_attribute_array_reaches_it():
    class Accumulator:
        def __init__(self):
            self.total = np.zeros(6)

        @jc.jit
        def add(self, x):
            self.total += x

    acc = Accumulator()
    for _ in range(4):
        acc.add(X)
    np.testing.assert_allclose(acc.total, 4 * X.astype(np.float64))


def test_a_classmethod_is_called_natively():
    Layer.shifted(X)
    Layer.shifted(X)
    before = native_calls(Layer.shifted)
    np.testing.assert_array_equal(Layer.shifted(X), X + 1.0)
    np.testing.assert_array_equal(Layer().shifted(X), X + 1.0)
    assert native_calls(Layer.shifted) == before + 2


def test_a_classmethod_sees_its_class_constants_change(monkeypatch):
    monkeypatch.setattr(Layer, "BIAS", Layer.BIAS)
    for bias in (1.0, 2.5, -0.0, 1.0):
        Layer.BIAS = bias
        for _ in range(3):
            np.testing.assert_array_equal(Layer.shifted(X), X + bias)
            assert np.signbit(Layer.shifted(np.zeros(1, np.float32) * -1.0)[0]) == np.signbit(-0.0 + bias)


def test_a_classmethod_reading_a_class_array_reads_it_on_every_call():
    class Table:
        ROW = np.ones(6, np.float32)

        @jc.jit
        @classmethod
        def add(cls, x):
            return x + cls.ROW

    for value in (1.0, 4.0, 1.0):
        for _ in range(3):
            Table.ROW[:] = value  # in place: keyed by its contents
            np.testing.assert_array_equal(Table.add(X), X + value)
            Table.ROW = np.full(6, value + 1, np.float32)  # rebound
            np.testing.assert_array_equal(Table.add(X), X + value + 1)
    assert Table.add.cache_info().compiles == 4  # 1, 2, 4, 5: compiled once each
    Table.ROW = np.ones(1000, np.float32)
    with pytest.raises(jc.UnsupportedError, match=r"reads Table.ROW, an array of 1000 elements"):
        Table.add(np.ones(1000, np.float32))


def test_bound_jitted_methods_look_like_bound_methods():
    layer = Layer()
    bound = layer.apply
    assert bound.__self__ is layer and bound.__func__ is Layer.__dict__["apply"]
    assert str(bound.__signature__) == "(x)"
    assert "func.func" in bound.lower(X).as_text("traced")
    assert repr(bound).startswith("<bound jitted method Layer.raw of")
