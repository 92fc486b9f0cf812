"""The native call of functions that write their arguments (``out=``, ``a += 1``) and of functions
that read globals, closed-over arrays and default arrays on each call (``jitcore.calltime``).

Written to catch a stale answer first: each test changes what the Python path checks (a global
rebound to another array, shape, dtype or layout; a read-only or overlapping ``out``; a changed
default) between cached calls and compares with NumPy, then checks which calls were native."""

import sys
import threading

import numpy as np
import pytest

import jitcore as jc
from jitcore import native_call
from jitcore.api import python_call
from jitcore.errors import JitTypeError

pytestmark = pytest.mark.skipif(not native_call.AVAILABLE, reason="no native call on this Python/NumPy")


def native_calls(f) -> int:
    return f._native_hits.value


def natively(f, *args, **kwargs):
    """One cached call of ``f``, checked to be the native call's (after the two calls that offer
    it its entry)."""
    f(*args, **kwargs)
    f(*args, **kwargs)
    before = native_calls(f)
    got = f(*args, **kwargs)
    assert native_calls(f) == before + 1, (args, kwargs)
    return got


# -- writes to arguments ------------------------------------------------------------------------
def into(x, y, out):
    out[...] = x * 2 + y
    return out


def increment(a):
    a += 1


def scaled_into(x, out, scale):
    out[:] = x * scale
    return out.sum()


def test_an_out_argument_is_written_and_returned_natively():
    f = jc.jit(into)
    x = np.linspace(-1, 1, 8, dtype=np.float32)
    y = x[::-1].copy()
    out = np.zeros(8, np.float32)
    got = natively(f, x, y, out=out)
    assert got is out
    np.testing.assert_array_equal(out, x * 2 + y)
    before = native_calls(f)
    for k in range(3):  # new values each call: the write is no value kept from an earlier call
        x2 = x + k
        got = f(x2, y, out=out)
        assert got is out
        np.testing.assert_array_equal(out, x2 * 2 + y)
        got = f(x, x2, out)  # positional: another entry, the same code
        np.testing.assert_array_equal(out, x * 2 + x2)
    assert native_calls(f) >= before + 4
    assert f.cache_info().compiles == 1


def test_an_in_place_update_returning_none_counts_every_call():
    f = jc.jit(increment)
    a = np.zeros((3, 4), np.int32)
    assert natively(f, a) is None
    before = native_calls(f)
    for _ in range(5):
        assert f(a) is None
    assert native_calls(f) == before + 5
    np.testing.assert_array_equal(a, np.full((3, 4), 8, np.int32))  # 3 warm-up and checked calls, 5 more


@pytest.mark.parametrize("overlap", ["same", "shifted", "reversed", "strided_view"])
def test_an_out_overlapping_another_argument_raises_as_the_python_path(overlap):
    f = jc.jit(into)
    x, y, out = np.ones(8), np.arange(8.0), np.zeros(8)
    natively(f, x, y, out=out)
    buffer = np.arange(16.0)
    cases = {"same": (buffer[:8], y, buffer[:8]), "shifted": (x, buffer[1:9], buffer[:8]),
             "reversed": (buffer[7::-1].copy(), buffer[:8], buffer[:8]),
             "strided_view": (buffer[::2], y, buffer[4:12])}
    a, b, o = cases[overlap]
    keep = buffer.copy()
    with pytest.raises(JitTypeError, match="shares memory"):
        f(a, b, out=o)
    np.testing.assert_array_equal(buffer, keep)  # nothing written
    separate = (buffer[:8], buffer[8:])  # one buffer, no overlap: written natively
    before = native_calls(f)
    f(x, separate[0], out=separate[1])
    assert native_calls(f) == before + 1
    np.testing.assert_array_equal(separate[1], x * 2 + keep[:8])


def test_a_read_only_or_strided_out_takes_the_python_path():
    f = jc.jit(into)
    x, y = np.ones(8), np.arange(8.0)
    natively(f, x, y, out=np.zeros(8))
    read_only = np.zeros(8)
    read_only.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        f(x, y, out=read_only)
    np.testing.assert_array_equal(read_only, 0)
    wide = np.zeros(16)
    got = f(x, y, out=wide[::2])
    np.testing.assert_array_equal(wide[::2], x * 2 + y)
    np.testing.assert_array_equal(wide[1::2], 0)
    assert got.base is wide
    other = np.zeros(8, np.float32)  # another dtype: its own signature, NumPy's cast on writing
    f(x, y, out=other)
    np.testing.assert_array_equal(other, (x * 2 + y).astype(np.float32))


def test_a_write_and_a_result_together():
    f = jc.jit(scaled_into)
    x = np.arange(6.0).reshape(2, 3)
    out = np.empty((2, 3))
    for scale in (2.0, -0.5, 3.0):
        got = natively(f, x, out, scale)
        np.testing.assert_array_equal(out, x * scale)
        assert type(got) is np.float64 and got == (x * scale).sum()


def test_writes_keep_reference_counts():
    f = jc.jit(into)
    x, y, out = np.ones(8), np.arange(8.0), np.zeros(8)
    natively(f, x, y, out=out)
    counts = lambda: (sys.getrefcount(x), sys.getrefcount(y), sys.getrefcount(out))  # noqa: E731
    before = counts()
    for _ in range(1000):
        f(x, y, out=out)
    assert counts() == before
    g = jc.jit(increment)
    a = np.zeros(4)
    natively(g, a)
    count = sys.getrefcount(a), sys.getrefcount(None)
    for _ in range(1000):
        g(a)
    assert (sys.getrefcount(a), sys.getrefcount(None)) == count
    np.testing.assert_array_equal(a, 1003)


# -- call-time inputs: globals, cells, defaults ---------------------------------------------------
WEIGHTS = np.ones(8, np.float32)
OFFSET = 1.0
STEP = 2


def weighted(x):
    return x * WEIGHTS


def weighted_and_offset(x):
    return x * WEIGHTS + OFFSET * STEP


def accumulate(x):
    WEIGHTS[:] += x  # a global written in place: the caller's array changes


@pytest.fixture
def weights():
    global WEIGHTS, OFFSET, STEP
    saved = WEIGHTS, OFFSET, STEP
    yield
    WEIGHTS, OFFSET, STEP = saved


def test_a_global_array_rebound_between_calls_is_read_natively(weights):
    global WEIGHTS
    f = jc.jit(weighted)
    x = np.linspace(-1, 1, 8, dtype=np.float32)
    np.testing.assert_array_equal(natively(f, x), x * WEIGHTS)
    before = native_calls(f)
    for k in range(4):
        WEIGHTS = np.full(8, k + 2.0, np.float32)  # another array, the same signature
        np.testing.assert_array_equal(f(x), x * WEIGHTS)
        WEIGHTS[3] = -7.0  # written in place: read, not copied, on each call
        np.testing.assert_array_equal(f(x), x * WEIGHTS)
    assert native_calls(f) == before + 8
    assert f.cache_info().compiles == 1


@pytest.mark.parametrize("rebind", ["shape", "dtype", "strided", "fortran_2d", "not_an_array", "deleted",
                                    "read_only"])
def test_a_global_changed_otherwise_gives_numpys_answer(weights, rebind):
    global WEIGHTS
    f = jc.jit(weighted)
    x = np.linspace(-1, 1, 8, dtype=np.float32)
    natively(f, x)
    wide = np.arange(16, dtype=np.float32)
    new = {"shape": np.ones(1, np.float32), "dtype": np.arange(8.0), "strided": wide[::2],
           "fortran_2d": np.asfortranarray(np.arange(16, dtype=np.float32).reshape(2, 8)),
           "not_an_array": [1.0] * 8, "deleted": None, "read_only": np.arange(8, dtype=np.float32)}[rebind]
    if rebind == "read_only":
        new.flags.writeable = False
    if rebind == "deleted":
        del WEIGHTS
        with pytest.raises(NameError):
            weighted(x)
        with pytest.raises(Exception) as raised:
            f(x)
        assert "WEIGHTS" in str(raised.value)
        WEIGHTS = np.ones(8, np.float32)
    else:
        WEIGHTS = new
        try:
            expected = weighted(x)
        except Exception as e:  # noqa: BLE001  (a list times an array: NumPy's own answer)
            with pytest.raises(type(e)):
                f(x)
        else:
            for _ in range(3):
                got = f(x)
                assert got.dtype == expected.dtype
                np.testing.assert_array_equal(got, expected)
    WEIGHTS = np.full(8, 3.0, np.float32)  # back to the first signature: its code, natively
    before = native_calls(f)
    np.testing.assert_array_equal(f(x), x * 3)
    assert native_calls(f) == before + 1


def test_alternating_shapes_of_a_global_are_both_native(weights):
    global WEIGHTS
    f = jc.jit(weighted)
    x, row = np.arange(8, dtype=np.float32), np.arange(8, dtype=np.float32).reshape(1, 8)
    shapes = [np.full(8, 2.0, np.float32), np.full((3, 8), 0.5, np.float32)]
    for w in shapes * 3:
        WEIGHTS = w
        f(x)
        f(row)
    before = native_calls(f)
    for w in shapes * 2:
        WEIGHTS = w
        np.testing.assert_array_equal(f(x), x * w)
    assert native_calls(f) == before + 4


def test_guarded_global_numbers_are_matched_by_value(weights):
    global OFFSET, STEP
    f = jc.jit(weighted_and_offset)
    x = np.arange(8, dtype=np.float32)
    np.testing.assert_array_equal(natively(f, x), weighted_and_offset(x))
    before = native_calls(f)
    for OFFSET, STEP in [(1.0, 2), (-0.0, 2), (1.0, 3), (float("nan"), 2), (1, 2), (1.0, True), (2.5, 2)]:  # noqa: B007
        got = f(x)
        expected = weighted_and_offset(x)
        assert got.dtype == expected.dtype
        np.testing.assert_array_equal(got, expected)
    OFFSET, STEP = 1.0, 2
    np.testing.assert_array_equal(f(x), weighted_and_offset(x))
    assert native_calls(f) >= before + 2  # the first value's code, natively, at least twice


def test_a_global_array_written_in_place_is_written_back(weights):
    global WEIGHTS
    f = jc.jit(accumulate)
    WEIGHTS = np.zeros(8, np.float32)
    x = np.ones(8, np.float32)
    natively(f, x)
    before = native_calls(f)
    f(x)
    assert native_calls(f) == before + 1
    np.testing.assert_array_equal(WEIGHTS, 4.0)
    WEIGHTS = np.zeros(8, np.float32)  # another array: written there
    f(x)
    np.testing.assert_array_equal(WEIGHTS, 1.0)
    with pytest.raises(JitTypeError, match="shares memory"):
        f(WEIGHTS)  # the argument is the global it writes: as on the Python path


def test_a_closed_over_array_rebound_is_read_natively():
    scale = np.ones(4)

    def f(x):
        return x * scale

    jitted = jc.jit(f)
    x = np.arange(4.0)
    np.testing.assert_array_equal(natively(jitted, x), x)
    before = native_calls(jitted)
    for k in range(3):
        scale = np.full(4, k + 5.0)  # noqa: F841  (the cell the function reads)
        np.testing.assert_array_equal(jitted(x), f(x))
    assert native_calls(jitted) == before + 3
    scale = np.ones(5)
    np.testing.assert_array_equal(jitted(np.arange(5.0)), np.arange(5.0))


def test_a_default_array_is_read_on_each_call():
    def f(x, w=np.full(3, 2.0), *, b=np.ones(3)):  # noqa: B008  (default arrays: the case tested)
        return x * w + b

    jitted = jc.jit(f)
    x = np.arange(3.0)
    np.testing.assert_array_equal(natively(jitted, x), f(x))
    before = native_calls(jitted)
    f.__defaults__[0][:] = 7.0  # the default array written in place
    np.testing.assert_array_equal(jitted(x), f(x))
    f.__defaults__ = (np.full(3, -1.0),)  # another default array
    np.testing.assert_array_equal(jitted(x), f(x))
    f.__kwdefaults__ = {"b": np.full(3, 10.0)}
    np.testing.assert_array_equal(jitted(x), f(x))
    assert native_calls(jitted) == before + 3
    f.__defaults__ = (np.full(4, 1.0),)
    with pytest.raises(ValueError):
        f(x)
    with pytest.raises(Exception):  # noqa: B017  (the Python path's broadcasting error)
        jitted(x)
    f.__defaults__ = None
    with pytest.raises(TypeError):
        jitted(x)


def test_rebinding_a_global_in_another_thread_never_crashes_or_mixes(weights):
    global WEIGHTS
    f = jc.jit(weighted)
    x = np.ones(8, np.float32)
    natively(f, x)
    pairs = [np.full(8, 2.0, np.float32), np.full(8, 3.0, np.float32)]
    stop = threading.Event()

    def rebind():
        global WEIGHTS
        k = 0
        while not stop.is_set():
            WEIGHTS = pairs[k % 2].copy()  # each array freed when the next replaces it
            k += 1

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)  # the threads take turns often, between and inside calls
    thread = threading.Thread(target=rebind)
    thread.start()
    try:
        seen = {float(f(x)[0]) for _ in range(3000)}
    finally:
        stop.set()
        thread.join()
        sys.setswitchinterval(interval)
    assert seen <= {1.0, 2.0, 3.0}
    WEIGHTS = pairs[0]
    f(x)
    count = sys.getrefcount(pairs[0])
    for _ in range(500):
        f(x)
    after = sys.getrefcount(pairs[0])  # (not in the assert: pytest's rewrite holds its operands)
    assert after == count  # each call's own reference released


def test_the_python_path_agrees(weights):
    f = jc.jit(into)
    x, y, out = np.ones(4), np.arange(4.0), np.zeros(4)
    assert python_call(f, x, y, out) is out
    np.testing.assert_array_equal(out, x * 2 + y)


# -- tuples and lists of arrays ---------------------------------------------------------------------
def pair_sum(xs):
    return xs[0] * 2 + xs[1]


def scaled_pair(s, xs, t=1.0):
    return xs[0] * s + xs[1] * t


def test_a_tuple_or_list_of_arrays_is_called_natively():
    f = jc.jit(pair_sum)
    x, y = np.linspace(-1, 1, 8, dtype=np.float32), np.arange(8, dtype=np.float32)
    np.testing.assert_array_equal(natively(f, (x, y)), x * 2 + y)
    np.testing.assert_array_equal(natively(f, [y, x]), y * 2 + x)
    before = native_calls(f)
    for k in range(3):  # new arrays each call: the items are read, not kept
        a = x + k
        np.testing.assert_array_equal(f((a, y)), a * 2 + y)
        np.testing.assert_array_equal(f([y, a]), y * 2 + a)
    assert native_calls(f) == before + 6
    g = jc.jit(scaled_pair)
    big = np.arange(24.0).reshape(4, 6)
    for args, kwargs in [((2.0, (x, y)), {}), ((3, [x, y]), dict(t=0.5)),
                         ((), dict(xs=(big[:, ::2], big[:, 1::2]), s=-0.0))]:
        np.testing.assert_array_equal(natively(g, *args, **kwargs), scaled_pair(*args, **kwargs))


@pytest.mark.parametrize("change", ["shape", "dtype", "strided", "number", "longer", "shorter", "nested",
                                    "other_type", "subclass"])
def test_a_container_changed_otherwise_gives_numpys_answer(change):
    f = jc.jit(pair_sum)
    x, y = np.ones(8, np.float32), np.arange(8, dtype=np.float32)
    items = [x, y]
    natively(f, items)
    wide = np.arange(16, dtype=np.float32)

    class Pair(tuple):
        pass

    new = {"shape": [x, np.ones(1, np.float32)], "dtype": [x, np.arange(8.0)], "strided": [x, wide[::2]],
           "number": [x, 2.5], "longer": [x, y, y], "shorter": [x], "nested": [x, (y,)], "other_type": (x, y),
           "subclass": Pair((x, y))}[change]
    items[:] = new  # the same list object, other items
    try:
        expected = pair_sum(new)
    except Exception as e:  # noqa: BLE001  (NumPy's own error: the Python path's too)
        with pytest.raises(type(e)):
            f(items)
    else:
        got = f(items)
        assert got.dtype == expected.dtype
        np.testing.assert_array_equal(got, expected)
    items[:] = [y, x]
    before = native_calls(f)
    np.testing.assert_array_equal(f(items), y * 2 + x)
    assert native_calls(f) == before + 1


def swap_into(pair):
    out = pair[1]  # (``pair[1][...] = ...`` on a tuple is refused while tracing: a tuple item assignment)
    out[...] = pair[0] * 2


def test_a_write_into_a_container_item():
    f = jc.jit(swap_into)
    x, out = np.arange(6.0), np.zeros(6)
    assert natively(f, (x, out)) is None
    np.testing.assert_array_equal(out, x * 2)
    same, same2 = np.arange(6.0), np.arange(6.0)  # one array as both items: written once, as in NumPy
    f((same, same)), swap_into((same2, same2))
    np.testing.assert_array_equal(same, same2)
    with pytest.raises(JitTypeError, match="shares memory"):
        f((out, out[:]))
    buffer = np.arange(12.0)
    natively(f, [buffer[:6], buffer[6:]])  # a list: a signature of its own
    np.testing.assert_array_equal(buffer[6:], np.arange(6.0) * 2)
    keep = buffer.copy()
    with pytest.raises(JitTypeError, match="shares memory"):
        f([buffer[:6], buffer[3:9]])
    np.testing.assert_array_equal(buffer, keep)


def test_a_list_changed_by_another_thread_never_crashes_or_mixes():
    f = jc.jit(pair_sum)
    items = [np.ones(8), np.ones(8)]
    natively(f, items)
    stop = threading.Event()

    def change():
        k = 0
        while not stop.is_set():
            items[k % 2] = np.full(8, float(k % 3))  # the old item freed as the new one replaces it
            k += 1

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    thread = threading.Thread(target=change)
    thread.start()
    try:
        for _ in range(3000):
            got = f(items)
            assert got[0] == got[-1] and got[0] in {0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0}
    finally:
        stop.set()
        thread.join()
        sys.setswitchinterval(interval)
    x = np.ones(8)
    items[:] = [x, x]
    f(items)
    count = sys.getrefcount(x)
    for _ in range(500):
        f(items)
    after = sys.getrefcount(x)
    assert after == count


def kind_scaled(xs):
    total = xs[0]
    for v in xs[1:]:  # as many items as the call's container holds
        total = total + v
    return total * (2 if isinstance(xs, tuple) else 3)


def test_a_containers_type_and_length_pick_their_own_code():
    f = jc.jit(kind_scaled)
    x = np.arange(4.0)
    for items in ([x, x], (x, x), [x, x, x], (x,), [x], (x, x, x)):
        got = natively(f, items)
        np.testing.assert_array_equal(got, kind_scaled(items))
    before = native_calls(f)
    for items in ([x, x], (x, x), [x, x, x], (x,), [x], (x, x, x)) * 2:
        np.testing.assert_array_equal(f(items), kind_scaled(items))
    assert native_calls(f) == before + 12  # six signatures, all in the table


def dense(params, x):
    out = x * params["w"] + params["b"]
    for name in params:  # the dict's own order while tracing, as without jit
        out = out * 2 + params[name][:1]
    return out


@pytest.mark.parametrize("change", ["same_keys_reordered", "missing", "extra", "renamed", "shape", "dtype",
                                    "number", "nested", "subclass", "int_key"])
def test_a_dict_of_arrays_is_called_natively_and_changes_give_numpys_answer(change):
    import collections

    f = jc.jit(dense)
    x = np.arange(6, dtype=np.float32)
    w, b = np.full(6, 2.0, np.float32), np.linspace(0, 1, 6, dtype=np.float32)
    params = {"w": w, "b": b}
    expected = jc.jit(dense)(params, x)  # a fresh function's first call: the full path
    np.testing.assert_array_equal(natively(f, params, x), expected)
    new = {"same_keys_reordered": {"b": b, "w": w}, "missing": {"w": w}, "extra": {"w": w, "b": b, "c": b},
           "renamed": {"w": w, "bias": b}, "shape": {"w": w, "b": b[:1]}, "dtype": {"w": w, "b": b * 1.0},
           "number": {"w": w, "b": 0.5}, "nested": {"w": w, "b": [b]},
           "subclass": collections.OrderedDict(w=w, b=b), "int_key": {"w": w, "b": b, 1: b}}[change]
    before = native_calls(f)
    try:
        want = jc.jit(dense)(new, x)
    except Exception as e:  # noqa: BLE001  (the Python path's own error)
        with pytest.raises(type(e)):
            f(new, x)
    else:
        got = f(new, x)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
    # (same_keys_reordered: another signature, as the loop below sees the dict's order)
    params["w"] = w * 3  # the same dict, another array: read on each call
    np.testing.assert_array_equal(f(params, x), jc.jit(dense)(params, x))
    assert native_calls(f) >= before + 1


def test_a_dict_with_a_key_that_is_not_a_str_goes_to_the_python_path():
    """The native call looks a dict argument's items up by the entry's str keys only after
    checking every key is an exact str (PyDict_Next runs no Python code): a key whose
    ``__eq__`` empties the dict during a lookup could otherwise free an item before it is held."""
    @jc.jit
    def f(p, x):
        return p["w"] * x + p["b"]

    x = np.ones(4)
    for _ in range(3):
        np.testing.assert_array_equal(f({"w": np.full(4, 2.0), "b": np.ones(4)}, x), np.full(4, 3.0))

    class Evil:
        armed = False

        def __hash__(self):
            return hash("w")

        def __eq__(self, other):
            if Evil.armed:
                evil.clear()
            return False

    evil = {"w": np.full(4, 2.0), Evil(): np.ones(4)}
    Evil.armed = True
    with pytest.raises(KeyError):  # as without jit: p["b"] is not there
        f(evil, x)
    np.testing.assert_array_equal(f({"w": np.full(4, 3.0), "b": np.ones(4)}, x), np.full(4, 4.0))
