"""jc.debug_print and jc.debug_callback: calls into Python from compiled code at run time.

The oracle is the same function run without ``jit``, where both run at once: the compiled
function must print the same lines in the same order, inside loops and branches too.
"""

import threading
import traceback

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import jitcore as jc
from jitcore import config, ir, pytree
from jitcore.errors import JitTypeError
from jitcore.ir.dialects import array
from jitcore.ir.errors import VerificationError
from jitcore.ir.parser import parse


def _printed(capsys, fn, *args):
    """What ``fn(*args)`` prints, and its result (output before the call is dropped, so
    hypothesis may reuse ``capsys`` across examples)."""
    capsys.readouterr()
    result = fn(*args)
    return capsys.readouterr().out, result


def _same_as_python(capsys, fn, *args):
    expected, want = _printed(capsys, fn, *args)
    got_text, got = _printed(capsys, jc.jit(fn), *args)
    assert got_text == expected
    (got, got_tree), (want, want_tree) = pytree.flatten(got), pytree.flatten(want)
    assert got_tree == want_tree
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
    return got_text


# -- the op ---------------------------------------------------------------------------------
_CALLBACK_IR = """"builtin.module"() ({
  "func.func"() ({
  ^bb0(%arg0: tensor<4xf64>, %arg1: tensor<i32>):
    "array.callback"(%arg0, %arg1) {callback = 3} : (tensor<4xf64>, tensor<i32>) -> ()
    "func.return"(%arg0) : (tensor<4xf64>) -> ()
  }) {function_type = (tensor<4xf64>, tensor<i32>) -> tensor<4xf64>, sym_name = "f"} : () -> ()
}) : () -> ()"""


def test_the_callback_op_round_trips_and_is_verified():
    module = parse(_CALLBACK_IR)
    ir.verify(module)
    assert ir.print_op(module) == _CALLBACK_IR
    op = next(iter(module.functions())).body.ops[0]
    assert isinstance(op, array.CallbackOp) and op.callback == 3
    with pytest.raises(VerificationError, match="callback"):
        ir.verify(parse(_CALLBACK_IR.replace("{callback = 3} ", "")))


# -- straight-line code ---------------------------------------------------------------------
def test_prints_in_program_order_with_named_and_positional_fields(capsys):
    def f(x):
        jc.debug_print("first {}", x)
        y = x * 2
        jc.debug_print("y = {y}, sum = {}", y.sum(), y=y)
        jc.debug_print("last {:.3f}", x.max())
        return y + 1

    text = _same_as_python(capsys, f, np.array([1.5, -2.0, 3.25]))
    assert text.splitlines()[0] == "first [ 1.5  -2.    3.25]"
    assert text.splitlines()[2] == "last 3.250"


_DTYPES = [np.float64, np.float32, np.int64, np.int32, np.uint8, np.bool_, np.complex128]


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(dtype=st.sampled_from(_DTYPES),
       shape=st.sampled_from([(), (1,), (4,), (2, 3), (3, 1, 2)]),
       seed=st.integers(0, 2**16))
def test_prints_values_of_any_dtype_and_shape_as_numpy_does(capsys, dtype, shape, seed):
    rng = np.random.default_rng(seed)
    x = (rng.normal(size=shape) * 10).astype(dtype)

    def f(x):
        jc.debug_print("{} | {x} | {}", x, x[()] if x.ndim == 0 else x[..., 0], x=x)
        return x

    _same_as_python(capsys, f, x)


def test_zero_d_values_print_as_numpy_scalars(capsys):
    def f(x):
        jc.debug_print("{} {} {}", x.sum(), x[1], np.float32(2.5))
        return x

    text = _same_as_python(capsys, f, np.array([1.0, 2.0, 4.0]))
    assert text == "7.0 2.0 2.5\n"


def test_a_print_of_an_unused_value_is_kept(capsys):
    def f(x):
        jc.debug_print("unused {}", np.sin(x))  # its value is used by nothing else
        return x

    jitted = jc.jit(f)
    assert "array.callback" in jitted.lower(np.ones(2)).as_text("optimized")
    _same_as_python(capsys, f, np.array([0.5, 1.0]))


def test_prints_strided_arguments_and_folded_constants(capsys):
    def f(x):
        jc.debug_print("x={} z={}", x, np.zeros_like(x) + 3)  # z folds to a constant
        return x + 1

    base = np.arange(24.0).reshape(4, 6)
    for x in (base.T, base[::2, 1::3], base[:, ::-1]):
        _same_as_python(capsys, f, x)


def test_a_print_of_static_values_only_prints_on_every_call(capsys):
    @jc.jit
    def f(x):
        jc.debug_print("hello {} {name}", 3, name="there")
        return x + 1

    for _ in range(2):
        assert _printed(capsys, f, np.ones(2))[0] == "hello 3 there\n"


# -- loops and branches ---------------------------------------------------------------------
def test_prints_every_iteration_of_a_fori_loop(capsys):
    def f(x):
        def body(i, acc):
            jc.debug_print("i={} acc={} row={}", i, acc, x[i])
            return acc + x[i].sum()

        return jc.fori_loop(0, x.shape[0], body, 0.0)

    text = _same_as_python(capsys, f, np.arange(12.0).reshape(4, 3))
    assert len(text.splitlines()) == 4


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(n=st.integers(0, 7), lower=st.integers(-2, 3))
def test_prints_every_iteration_with_traced_bounds(capsys, n, lower):
    def f(x, lo, hi):
        def body(i, acc):
            acc = acc * 2 + i
            jc.debug_print("{} {}", i, acc)
            return acc

        return jc.fori_loop(lo, hi, body, x)

    _same_as_python(capsys, f, np.int64(1), np.int64(lower), np.int64(lower + n))


def test_prints_every_step_of_a_scan(capsys):
    def f(xs):
        def step(carry, x):
            jc.debug_print("carry={} x={}", carry, x)
            return carry + x, carry * x

        return jc.scan(step, np.float64(1.0), xs)

    text = _same_as_python(capsys, f, np.array([0.5, 2.0, -1.0]))
    assert len(text.splitlines()) == 3


def test_a_loop_invariant_print_is_not_hoisted(capsys):
    def f(x):
        def body(i, acc):
            jc.debug_print("x = {}", x)  # the same value every iteration
            return acc + x

        return jc.fori_loop(0, 3, body, np.zeros_like(x))

    text = _same_as_python(capsys, f, np.array([1.0, 2.0]))
    assert text.count("x = [1. 2.]") == 3


def test_a_loop_whose_results_are_unused_still_prints(capsys):
    def f(x):
        jc.fori_loop(0, 3, lambda i, c: (jc.debug_print("step {}", i), c + 1)[1], x)
        return x * 2

    text = _same_as_python(capsys, f, np.ones(3))
    assert text == "step 0\nstep 1\nstep 2\n"


def test_prints_in_a_while_loop_and_in_the_branches_of_cond(capsys):
    def f(x):
        def cond(c):
            jc.debug_print("check {}", c[0])
            return c[0] < 20

        def body(c):
            k, v = c
            v = jc.cond(k % 2 == 0,
                        lambda v: (jc.debug_print("even {} {}", k, v), v * 2)[1],
                        lambda v: (jc.debug_print("odd {} {}", k, v), v + 1)[1], v)
            return k + 3, v

        return jc.while_loop(cond, body, (x[0], x))

    text = _same_as_python(capsys, f, np.array([1, 5, 9]))
    assert "even" in text and "odd" in text


def test_prints_in_nested_loops_and_switch(capsys):
    def f(x):
        def outer(i, acc):
            def inner(j, acc):
                branch = lambda k: lambda a: (jc.debug_print("b{} i={} j={}", k, i, j), a + k)[1]  # noqa: E731
                return jc.switch(i + j, [branch(0), branch(1), branch(2)], acc)

            jc.debug_print("row {}", i)
            return jc.fori_loop(0, 2, inner, acc)

        return jc.fori_loop(0, 3, outer, x)

    text = _same_as_python(capsys, f, np.float64(0.0))
    assert len(text.splitlines()) == 3 + 6


# -- debug_callback -------------------------------------------------------------------------
def test_debug_callback_gets_numpy_arrays_in_pytrees_and_static_leaves():
    seen = []

    def record(pair, scale, *, named, tag):
        seen.append((pair, scale, named, tag))

    @jc.jit
    def f(x):
        y = x + 1
        jc.debug_callback(record, (x, [y]), 2.5, named={"s": y.sum()}, tag="t")
        return y

    x = np.arange(3, dtype=np.float32)
    f(x)
    (pair, scale, named, tag), = seen
    assert isinstance(pair[0], np.ndarray) and pair[0].dtype == np.float32
    np.testing.assert_array_equal(pair[0], x)
    np.testing.assert_array_equal(pair[1][0], x + 1)
    assert scale == 2.5 and tag == "t"
    assert named["s"] == np.float32(6.0) and isinstance(named["s"], np.float32)
    assert jc.debug_callback(record, x, 1, named={}, tag="eager") is None  # outside jit: now
    assert seen[-1][3] == "eager"


def test_debug_callback_gets_copies_each_iteration():
    kept = []

    @jc.jit
    def f(x):
        def body(i, v):
            jc.debug_callback(kept.append, v)
            return v * 2

        return jc.fori_loop(0, 3, body, x)

    f(np.array([1, 2]))
    assert [k.tolist() for k in kept] == [[1, 2], [2, 4], [4, 8]]


def test_a_function_without_callbacks_gets_no_trampoline():
    lowered = jc.jit(lambda x: x + 1).lower(np.ones(3))
    assert lowered.plan().callbacks == {}
    assert not lowered.plan().has_status
    with_print = jc.jit(lambda x: (jc.debug_print("{}", x), x + 1)[1]).lower(np.ones(3))
    assert len(with_print.plan().callbacks) == 1


# -- errors ---------------------------------------------------------------------------------
class _Boom(Exception):
    pass


def _explode(x):
    if x > 1:
        raise _Boom(f"callback saw {x}")


def test_an_exception_in_a_callback_is_raised_by_the_call_with_its_traceback(capsys):
    @jc.jit
    def f(x):
        def body(i, acc):
            jc.debug_print("before {}", i)
            jc.debug_callback(_explode, i)
            jc.debug_print("after {}", i)
            return acc + x

        return jc.fori_loop(0, 5, body, x)

    with pytest.raises(_Boom, match="callback saw 2") as info:
        f(np.float64(1.0))
    # the loop stopped at the failing callback: nothing ran after it
    assert capsys.readouterr().out == "before 0\nafter 0\nbefore 1\nafter 1\nbefore 2\n"
    frames = [frame.name for frame in traceback.extract_tb(info.value.__traceback__)]
    assert "_explode" in frames
    # the interpreter is fine and the next call works, from the cache
    with pytest.raises(_Boom):
        f(np.float64(1.0))
    assert f.cache_info().traces == 1
    capsys.readouterr()


def test_a_call_after_a_failed_one_runs_normally(capsys):
    fail = [True]

    def maybe(x):
        if fail[0]:
            raise ValueError("first time")

    @jc.jit
    def f(x):
        jc.debug_callback(maybe, x)
        jc.debug_print("ok {}", x.sum())
        return x * 3

    with pytest.raises(ValueError, match="first time"):
        f(np.ones(2))
    assert capsys.readouterr().out == ""
    fail[0] = False
    out, result = _printed(capsys, f, np.ones(2))
    assert out == "ok 2.0\n"
    np.testing.assert_array_equal(result, np.full(2, 3.0))


def test_no_callback_runs_after_an_index_error(capsys):
    @jc.jit
    def f(x, i):
        y = x[i]
        jc.debug_print("y = {}", y)
        return y

    with pytest.raises(IndexError):
        f(np.ones(3), np.int64(7))
    assert capsys.readouterr().out == ""
    assert _printed(capsys, f, np.arange(3.0), np.int64(2))[0] == "y = 2.0\n"


def test_a_bad_format_is_refused_while_tracing_naming_the_line():
    @jc.jit
    def f(x):
        jc.debug_print("{missing}", x)
        return x

    with pytest.raises(JitTypeError, match="debug_print format") as info:
        f(np.ones(2))
    assert "test_debugging.py" in str(info.value)


def test_debug_callback_needs_a_callable():
    with pytest.raises(JitTypeError, match="callable"):
        jc.jit(lambda x: jc.debug_callback(3, x))(np.ones(2))


# -- caching and threads --------------------------------------------------------------------
def test_a_cached_call_prints_again_without_tracing(capsys):
    @jc.jit
    def f(x):
        jc.debug_print("sum {}", x.sum())
        return x

    for k in range(3):
        assert _printed(capsys, f, np.full(4, float(k)))[0] == f"sum {4.0 * k}\n"
    assert f.cache_info().traces == 1


def test_two_threads_calling_one_function_each_see_their_own_values():
    seen: dict[int, list] = {}

    def record(v):
        seen.setdefault(threading.get_ident(), []).append(float(v))

    @jc.jit
    def f(x):
        def body(i, acc):
            jc.debug_callback(record, acc)
            return acc + x

        return jc.fori_loop(0, 50, body, x * 0)

    f(np.float64(0.0))  # compile once, before the threads start
    seen.clear()
    errors = []

    def run(value):
        try:
            for _ in range(20):
                f(np.float64(value))
        except BaseException as e:  # noqa: BLE001  (reported below)
            errors.append(e)

    threads = [threading.Thread(target=run, args=(v,)) for v in (1.0, 2.0)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    runs = sorted(seen.values(), key=lambda values: values[1])
    assert [len(values) for values in runs] == [50 * 20, 50 * 20]
    for step, values in zip((1.0, 2.0), runs):
        assert values == [step * i for i in range(50)] * 20


def test_callbacks_run_on_the_calling_thread_even_beside_split_launches():
    threads = []

    @jc.jit
    def f(x):
        y = np.sin(x) * 2  # large enough to be split across the runtime's threads
        jc.debug_callback(lambda v: threads.append(threading.get_ident()), y.sum())
        return y + 1

    x = np.linspace(0, 1, 200_000)
    with config.using(num_threads=3, parallel_threshold=0):
        out = f(x)
    np.testing.assert_allclose(out, np.sin(x) * 2 + 1)
    assert threads == [threading.get_ident()]
