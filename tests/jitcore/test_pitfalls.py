"""The pitfalls of tracing, and the errors that explain them: Python control flow on traced
data, converting tracers to NumPy, print while tracing, retracing, unsupported arguments,
shape errors, and a cache that stays consistent after an error."""

from __future__ import annotations

import collections
import inspect
import io
import linecache
import math
import os

import numpy as np
import pytest

import jitcore as jc
import jitcore.numpy as jnp
from jitcore import formatting
from tests.oracle import assert_matches, assert_prints_as_numpy

THIS_FILE = os.path.abspath(__file__)


def info(f):
    return tuple(f.cache_info())


def line_of(fn, text: str) -> int:
    """The line number, in this file, of the line of ``fn`` containing ``text``."""
    lines, start = inspect.getsourcelines(fn)
    (index,) = [i for i, line in enumerate(lines) if text in line]
    return start + index


def assert_explains(message: str, *, function: str, sources: list[str], fn, line_text: str,
                    what: str):
    """The ConcretizationError message has everything a user needs to fix the code."""
    assert what in message, message
    assert f"{function}()" in message, message
    for s in sources:
        assert s in message, f"{s!r} not named in:\n{message}"
    line = line_of(fn, line_text)
    # The user's file and line number, and the text of that line.
    assert f"{fn.__code__.co_filename}:{line}" in message, message
    assert os.path.abspath(fn.__code__.co_filename) == THIS_FILE
    assert line_text in message, message
    # The two ways out.
    assert "where(" in message, message
    assert "static_argnames" in message, message


# -- (a) Python control flow on traced values --------------------------------------------------
# With jit(f, autograph=False): the code runs as Python, so a traced condition cannot decide it.
# (With autograph, the default, the same code compiles: tests/jitcore/test_autograph.py.)

def test_if_on_traced_sum_raises_concretization_error():
    def bad(x):
        if x.sum() > 0:
            return x
        return -x

    f = jc.jit(bad, autograph=False)
    with pytest.raises(jc.ConcretizationError) as err:
        f(np.ones(8, np.float32))
    assert_explains(str(err.value), function="bad", sources=["x"], fn=bad,
                    line_text="if x.sum() > 0:", what="bool()")
    assert "static_argnames=('x',)" not in str(err.value)  # x is an array: not hashable
    assert isinstance(err.value, jc.JitcoreError)


@pytest.mark.parametrize("convert", ["bool", "int", "float"])
def test_bool_int_float_of_a_tracer_raise_concretization_error(convert):
    def bad_bool(x):
        return x * bool(x.max())

    def bad_int(x):
        return x * int(x.max())

    def bad_float(x):
        return x * float(x.max())

    fn = {"bool": bad_bool, "int": bad_int, "float": bad_float}[convert]
    with pytest.raises(jc.ConcretizationError) as err:
        jc.jit(fn, autograph=False)(np.arange(5, dtype=np.float64))
    assert_explains(str(err.value), function=fn.__name__, sources=["x"], fn=fn,
                    line_text=f"return x * {convert}(x.max())", what=f"{convert}()")


def test_index_of_a_tracer_raises_concretization_error():
    def bad_range(n):
        total = 0
        for i in range(n.sum()):
            total = total + i
        return total

    with pytest.raises(jc.ConcretizationError) as err:
        jc.jit(bad_range, autograph=False)(np.arange(3))
    assert_explains(str(err.value), function="bad_range", sources=["n"], fn=bad_range,
                    line_text="for i in range(n.sum()):", what="index")


def test_concretization_error_names_the_pytree_path():
    def bad(params, x):
        if (params["w"] * x).sum() > 0:
            return x
        return params["b"]

    with pytest.raises(jc.ConcretizationError) as err:
        jc.jit(bad, autograph=False)({"w": np.ones(3), "b": np.zeros(3)}, np.ones(3))
    message = str(err.value)
    assert_explains(message, function="bad", sources=["params['w']", "x"], fn=bad,
                    line_text='if (params["w"] * x).sum() > 0:', what="bool()")
    assert "params['b']" not in message  # b does not flow into the condition
    # params holds arrays: never suggested static (an array is not hashable)
    assert "static_argnames=(" not in message


def test_concretization_error_names_list_element_paths():
    def bad(xs):
        return xs[0] if xs[1].sum() > 0 else xs[0]

    with pytest.raises(jc.ConcretizationError) as err:
        jc.jit(bad, autograph=False)([np.ones(2), np.ones(2)])
    assert "depends on the argument(s) xs[1]:" in str(err.value)


def test_value_depending_on_two_arguments_names_both():
    def bad(x, y, unused):
        s = x * 2 + y
        if s.max() > 1:
            return x
        return y

    with pytest.raises(jc.ConcretizationError) as err:
        jc.jit(bad, autograph=False)(np.ones(3, np.float32), np.ones(3, np.float32), np.ones(3, np.float32))
    message = str(err.value)
    assert_explains(message, function="bad", sources=["x", "y"], fn=bad,
                    line_text="if s.max() > 1:", what="bool()")
    assert "unused" not in message


def test_loop_over_python_scalar_argument_suggests_making_it_static(without_auto_static):
    def bad(x, n):
        for _ in range(n):
            x = x * 2
        return x

    f = jc.jit(bad, autograph=False)
    with pytest.raises(jc.ConcretizationError) as err:
        f(np.ones(3), 3)
    assert_explains(str(err.value), function="bad", sources=["n"], fn=bad,
                    line_text="for _ in range(n):", what="index")
    assert "static_argnames=('n',)" in str(err.value)
    # Following the advice works.
    g = jc.jit(bad, static_argnames=("n",))
    assert_matches(g(np.ones(3), 3), np.full(3, 8.0))
    assert_matches(g(np.ones(3), 1), np.full(3, 2.0))


def test_where_is_the_fix():
    @jc.jit
    def good(x):
        return jnp.where(x > 0, x, -x)

    x = np.array([-2.0, 0.5, -0.0, 3.0], np.float32)
    assert_matches(good(x), np.where(x > 0, x, -x))


def test_user_code_in_a_directory_named_like_the_package_is_reported():
    filename = os.path.dirname(os.path.abspath(jc.__file__)) + "_user/model.py"
    source = "def bad(x):\n    if x.sum() > 0:\n        return x\n    return -x\n"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    try:
        namespace: dict = {}
        exec(compile(source, filename, "exec"), namespace)
        with pytest.raises(jc.ConcretizationError) as err:
            jc.jit(namespace["bad"], autograph=False)(np.ones(3))
    finally:
        linecache.cache.pop(filename, None)
    assert f"{filename}:2" in str(err.value), str(err.value)


# -- (b) converting a tracer to NumPy ----------------------------------------------------------

def test_np_asarray_of_a_tracer_raises_tracer_conversion_error():
    def bad(x):
        return np.asarray(x) + 1

    # Without autograph: with it, np.asarray of a traced value is that value (issue 12).
    with pytest.raises(jc.TracerConversionError) as err:
        jc.jit(bad, autograph=False)(np.ones(4, np.float32))
    message = str(err.value)
    assert "np.asarray()" in message
    assert "Traced<f32[4]>" in message
    assert "bad()" in message
    assert f"{THIS_FILE}:{line_of(bad, 'np.asarray(x)')}" in message
    assert "no data" in message  # the explanation
    assert "jitcore.numpy" in message  # the way out
    assert isinstance(err.value, jc.JitcoreError)


def test_unsupported_numpy_function_on_a_tracer_is_a_jitcore_error():
    # Converted through __array__ (TracerConversionError) or refused by name (UnsupportedError).
    f = jc.jit(lambda x: np.spacing(x))  # not lowered
    with pytest.raises((jc.TracerConversionError, jc.UnsupportedError)):
        f(np.ones(4))
    assert f.cache_info().compiles == 0


def test_iterating_over_a_tracer_unrolls_over_the_static_first_axis():
    # As in NumPy: the length is static, so the loop unrolls while tracing.
    def rows(x):
        total = 0
        for v in x:
            total = total + v
        return total

    x = np.arange(12.0).reshape(4, 3)
    np.testing.assert_array_equal(jc.jit(rows)(x), rows(x))
    with pytest.raises(TypeError, match="0-d"):
        jc.jit(rows)(np.float64(1.0))


# -- (c) print while tracing -------------------------------------------------------------------

def test_print_shows_the_values_at_each_call_as_numpy_does(capsys):
    """Since session 40 ``print`` of a traced value prints at each call, with that call's values
    (``jc.debug_callback``), as the NumPy code prints each time it runs; it printed the abstract
    value (``Traced<f32[1000]>``) once, while compiling, before."""
    @jc.jit
    def f(x):
        print(x.sum(), x[:2])
        return x + 1

    x = np.zeros(1000, np.float32)
    assert_matches(f(x), x + 1)
    assert capsys.readouterr().out == "0.0 [0. 0.]\n"
    assert_matches(f(np.ones(1000, np.float32)), np.full(1000, 2, np.float32))
    assert capsys.readouterr().out == "1000.0 [1. 1.]\n"


def test_print_of_static_values_runs_at_every_call(capsys):
    """Shapes and dtypes are known while compiling, but a print of them alone still prints at
    every call, as the NumPy code does (session 42; JAX prints it once, while tracing), with
    each call's shape where the code is reused for a new size."""
    @jc.jit
    def f(x):
        print(x.shape, x.dtype, len(x))
        return x + 1

    f(np.zeros(3, np.float32))
    f(np.zeros(3, np.float32))
    assert capsys.readouterr().out == "(3,) float32 3\n" * 2
    f(np.zeros(5, np.float32))
    f(np.zeros((2, 3)))
    assert capsys.readouterr().out == "(5,) float32 5\n(2, 3) float64 2\n"


def _clip_and_say(x, hi):
    print("start")
    if x.max() > hi:
        print("clipping to", hi)
        x = np.minimum(x, hi)
    else:
        print("no clip needed")
    print("sum", x.sum(), "end")
    return x


def test_prints_in_a_traced_branch_run_where_it_is_taken_in_program_order(capsys):
    # Found by a new-user program (session 42): the first call printed both branches' static
    # texts, and "start" and "end" before the traced sum; later calls only the sum.
    calls = [(np.arange(3.0), hi) for hi in (1.0, 5.0, 1.0)]
    assert_prints_as_numpy(capsys, _clip_and_say, jc.jit(_clip_and_say), calls)


def test_print_of_intermediate_values_and_shapes(capsys):
    @jc.jit
    def f(x, y):
        s = (x * y).sum(axis=0)
        print("s:", s, s.shape, s.dtype, sep="|")
        return s

    x, y = np.ones((4, 5), np.float32), np.arange(5, dtype=np.float32)
    f(x, y)
    out = capsys.readouterr().out
    want = io.StringIO()
    s = (x * y).sum(axis=0)
    print("s:", s, s.shape, s.dtype, sep="|", file=want)
    assert out == want.getvalue()


# -- (d) retracing -----------------------------------------------------------------------------

def test_same_signature_neither_traces_nor_compiles_new_ones_do():
    traces = collections.deque()  # (a list changed while tracing is refused)

    @jc.jit
    def f(x):
        traces.append((x.shape, x.dtype))
        return jnp.tanh(x * 2 + 1)

    a = np.linspace(-1, 1, 64, dtype=np.float32)
    for _ in range(3):
        assert_matches(f(a), np.tanh(a * 2 + 1), ulps=2)
    assert info(f) == (2, 1, 1, 1)
    assert list(traces) == [((64,), np.float32)]
    f(a[:32].copy())  # new shape: traced, its code reused (tests/jitcore/test_size_generic.py)
    assert info(f) == (2, 2, 2, 1)
    f(a.astype(np.float64))  # new dtype
    assert info(f) == (2, 3, 3, 2)
    f(a.astype(np.float64))
    f(a[:32].copy())
    assert info(f) == (4, 3, 3, 2)
    assert list(traces) == [((64,), np.float32), ((32,), np.float32), ((64,), np.float64)]


# -- (e) unsupported arguments -----------------------------------------------------------------

@pytest.mark.parametrize("arg, path", [(["a", "b"], "x[0]"),
                                       ({"w": np.ones(2), "name": "n"}, "x['name']"),
                                       (object(), "x")],
                         ids=["list-of-str", "dict-with-str", "object"])
def test_unsupported_argument_type_names_the_argument(arg, path, without_auto_static):
    # (strings in containers are made static on demand since session 56: JAX's rule refuses them)
    f = jc.jit(lambda x: x)
    with pytest.raises(jc.JitTypeError) as err:
        f(arg)
    message = str(err.value)
    assert f"argument {path} " in message, message
    assert "static_argnums" in message, message
    assert isinstance(err.value, TypeError)
    assert info(f) == (0, 0, 0, 0)


def test_string_argument_works_when_static():
    @jc.jit(static_argnums=1)
    def act(x, name):
        return jnp.tanh(x) if name == "tanh" else jnp.sin(x)

    x = np.linspace(-1, 1, 9)
    assert_matches(act(x, "tanh"), np.tanh(x), ulps=2)
    assert_matches(act(x, "sin"), np.sin(x), ulps=2)


@pytest.mark.parametrize("arr", [np.zeros(3, np.longdouble), np.array([1, None], dtype=object),
                                 np.zeros(2, np.clongdouble), np.array(["a"]),
                                 np.arange(3, dtype=">f4"), np.zeros(2, ">c8")],
                         ids=["longdouble", "object", "clongdouble", "str", "big-endian",
                              "big-endian-complex"])
def test_unsupported_dtype_names_the_dtype(arr):
    f = jc.jit(lambda y, x: x + y)
    with pytest.raises(jc.JitTypeError) as err:
        f(np.ones(3), arr)
    message = str(err.value)
    assert str(arr.dtype) in message, message
    assert "argument x " in message, message
    assert "astype" in message


def test_unsupported_return_value_is_a_jit_type_error():
    f = jc.jit(lambda x: (x, {"done"}))
    with pytest.raises(jc.JitTypeError, match="returned a set"):
        f(np.ones(2))


# -- (f) shape errors at trace time ------------------------------------------------------------

@pytest.mark.parametrize("shapes", [((3,), (4,)), ((2, 3), (3, 2)), ((5, 1, 3), (4, 2))])
def test_shape_mismatch_is_a_jit_type_error_at_trace_time(shapes):
    a_shape, b_shape = shapes
    f = jc.jit(lambda a, b: a + b)
    with pytest.raises(jc.JitTypeError) as err:
        f(np.ones(a_shape, np.float32), np.ones(b_shape, np.float32))
    message = str(err.value)
    assert str(a_shape) in message and str(b_shape) in message, message
    assert "broadcast" in message
    # Found while tracing, before anything is compiled.
    assert info(f) == (0, 1, 1, 0)


def test_bad_reshape_and_axis_are_jit_type_errors():
    with pytest.raises(jc.JitTypeError, match=r"\(6,\).*\(4, 2\)"):
        jc.jit(lambda x: x.reshape(4, 2))(np.ones(6))
    with pytest.raises(jc.JitTypeError, match="axis 2 is out of bounds"):
        jc.jit(lambda x: x.sum(axis=2))(np.ones((2, 3)))


def test_where_shape_mismatch_is_a_jit_type_error():
    f = jc.jit(lambda a, b: jnp.where(a > 0, a, b))
    with pytest.raises(jc.JitTypeError, match=r"\(3,\).*\(4,\)"):
        f(np.ones(3), np.ones(4))


# -- (g) reductions over an empty axis ---------------------------------------------------------

@pytest.mark.parametrize("spelling", ["jnp.max", "jnp.min", "method"])
def test_max_of_an_empty_axis_is_an_error_like_numpys(spelling):
    fn = {"jnp.max": lambda x: jnp.max(x, axis=1), "jnp.min": lambda x: jnp.min(x, axis=1),
          "method": lambda x: x.max(axis=1)}[spelling]
    x = np.zeros((3, 0), np.float32)
    with pytest.raises(ValueError) as numpy_err:
        fn(x)  # outside jit: NumPy itself
    f = jc.jit(fn)
    with pytest.raises(jc.JitTypeError) as err:
        f(x)
    assert str(numpy_err.value) in str(err.value)
    assert info(f) == (0, 1, 1, 0)


def test_max_over_a_nonempty_axis_of_an_empty_array_is_fine():
    f = jc.jit(lambda x: (jnp.max(x, axis=1), x.sum(axis=0)))
    x = np.zeros((0, 3), np.float32)
    m, s = f(x)
    assert_matches(m, np.max(x, axis=1))
    assert_matches(s, x.sum(axis=0))


def test_max_of_a_whole_empty_array_is_an_error():
    with pytest.raises(jc.JitTypeError, match="zero-size array"):
        jc.jit(jnp.max)(np.zeros(0))


# -- (h) errors do not corrupt the cache -------------------------------------------------------

def test_a_failing_call_leaves_the_cache_consistent():
    @jc.jit(autograph=False)
    def f(x):
        if x.ndim == 2:  # static: shapes are known while tracing
            if x.sum() > 0:  # not static: fails for 2-d arguments
                return x
        return x * 2

    good = np.arange(4, dtype=np.float32)
    bad = np.ones((2, 2), np.float32)
    with pytest.raises(jc.ConcretizationError):
        f(bad)
    assert info(f) == (0, 1, 1, 0)  # traced, failed, nothing compiled or cached
    assert_matches(f(good), good * 2)
    assert info(f) == (0, 2, 2, 1)
    assert_matches(f(good), good * 2)
    assert info(f) == (1, 2, 2, 1)
    # The failure was not cached: the bad signature fails again (and traces again).
    with pytest.raises(jc.ConcretizationError):
        f(bad)
    assert info(f) == (1, 3, 3, 1)
    assert_matches(f(good), good * 2)
    assert info(f) == (2, 3, 3, 1)


def test_argument_errors_do_not_count_or_cache():
    f = jc.jit(lambda x, y: x + y)
    with pytest.raises(jc.JitTypeError):
        f(np.ones(3), object())
    with pytest.raises(jc.JitTypeError):
        f(np.ones(3), np.zeros(3, np.longdouble))
    assert info(f) == (0, 0, 0, 0)
    with pytest.raises(jc.JitTypeError):
        f(np.ones(3), np.ones(4))  # a trace-time error
    assert info(f) == (0, 1, 1, 0)
    assert_matches(f(np.ones(3), np.ones(3)), np.full(3, 2.0))
    assert_matches(f(np.ones(3), np.ones(3)), np.full(3, 2.0))
    assert info(f) == (1, 2, 2, 1)


def math_of_traced(x):
    return math.sqrt(x.sum())


def format_traced(x):
    return f"{x.sum():.3f}"


def label_traced(x):
    # while tracing, the text holds a placeholder around the value's repr (jitcore.formatting),
    # which jitcore's own test finds; the user's 'in' on it is refused (jitcore/traced_text.py)
    assert formatting.holds(f"{x.sum()}")
    return x


def test_math_functions_and_format_specs_on_a_tracer_say_what_to_use():
    # converted code calls NumPy's sqrt for math.sqrt (jitcore/autograph/math_calls.py);
    # without the conversion, math.sqrt asks for float() of the tracer, and the error says so
    assert jc.jit(math_of_traced)(np.ones(3)) == math.sqrt(3.0)
    with pytest.raises(jc.ConcretizationError, match=r"math\.sqrt.*use np\.sqrt"):
        jc.jit(math_of_traced, autograph=False)(np.ones(3))
    with pytest.raises(jc.ConcretizationError, match=r"'\{\.\.\.\}' formats a traced value and is returned"):
        jc.jit(format_traced)(np.ones(3))  # text needed while compiling: returned
    np.testing.assert_array_equal(jc.jit(label_traced)(np.ones(3)), np.ones(3))


def _halving_sum(a, k):
    if k == 0:
        return a
    return _halving_sum(a * 0.5, k - 1) + a


def test_recursion_on_a_traced_argument_says_to_make_it_static(without_auto_static):
    """Both branches of ``if k == 0`` are traced when ``k`` is: the calls never end. The error
    names the scalar argument to make static, and marked static it compiles (by itself, static
    on demand: test_static_on_demand.py)."""
    with pytest.raises(jc.UnsupportedError) as info:
        jc.jit(_halving_sum)(np.ones(3), 3)
    first = str(info.value).splitlines()[0]
    assert "recursion limit" in first and "static_argnames=('k',)" in first
    np.testing.assert_array_equal(jc.jit(_halving_sum, static_argnames=("k",))(np.ones(3), 3),
                                  _halving_sum(np.ones(3), 3))


CALLS = 0
HISTORY = []


def _count_calls(x):
    global CALLS
    CALLS += 1
    return x * CALLS


def _record(x):
    HISTORY.append(x.sum())
    return x


def _nonlocal_counter():
    n = 0

    def count(x):
        nonlocal n
        n += 1
        return x * n
    return count


@pytest.mark.parametrize("make", [lambda: _count_calls, _nonlocal_counter])
def test_a_python_number_changed_while_tracing_is_refused(make):
    """``global N; N += 1`` (or a nonlocal's) runs once, while compiling; the guard on ``N`` then
    found it changed at every call and traced again without end (RecursionError before)."""
    global CALLS
    CALLS = 0
    with pytest.raises(jc.UnsupportedError, match="changed from 0 to 1 while the jitted function was traced"):
        jc.jit(make())(np.ones(2))


def test_storing_a_traced_value_in_a_list_from_outside_is_refused():
    """Before: the global list kept a tracer (``[Traced<f64[]>]``) after the call."""
    HISTORY.clear()
    with pytest.raises(jc.UnsupportedError, match="list.append"):
        jc.jit(_record)(np.ones(2))
    assert HISTORY == []
