"""Traced values formatted by the user's code (f-strings, str.format) are filled in when the
compiled function runs (jitcore/formatting.py): printed and raised text matches the function
run by NumPy, at every call, in compiled loops and branches; text needed while compiling (a
returned string) is refused; jitcore's own messages keep values' reprs."""
# ruff: noqa: UP031, F507  (printf-style formatting and its errors are what some tests test)

import numpy as np
import pytest

import jitcore as jc
from jitcore import formatting
from tests.oracle import assert_prints_as_numpy


def descent(x, steps):
    w = 0.0
    for i in range(steps):  # a compiled loop: steps is traced
        loss = np.mean((x - w) ** 2)
        if i % 3 == 0:
            print(f"step {i:>3}: loss {loss:.6f}, w={w:+.3e}")
        w = w + 0.25 * np.mean(x - w)
    print("done: {:.5f} after {} steps".format(w, steps), "max", x.max())  # noqa: UP032  (str.format too)
    return w


def checked(x):
    for i in range(x.shape[0]):
        if x[i] < 0:
            raise ValueError(f"x[{i}] = {x[i]:.3f} is negative")
    return x.sum()


def printed(fn, *args, capsys):
    result = fn(*args)
    return result, capsys.readouterr().out


@pytest.mark.parametrize("x, steps", [(np.arange(5.0), 7), (np.linspace(-2, 3, 11), 10)])
def test_printed_text_matches_numpys_at_each_call(x, steps, capsys):
    jitted = jc.jit(descent)
    want, want_text = printed(descent, x, steps, capsys=capsys)
    for _ in range(2):  # compiled, then cached: the text is made at each call
        got, got_text = printed(jitted, x, steps, capsys=capsys)
        assert got_text == want_text
        np.testing.assert_allclose(got, want, rtol=1e-12)
    assert jitted.cache_info().compiles == 1
    assert "\ue000" not in got_text


def test_a_raised_message_holds_the_values():
    jitted = jc.jit(checked)
    # 54 elements, not 504: the loop (a raise in its body) is unrolled while tracing, 4.2 s of
    # CPU for 504 steps against 0.5 s; the message's check is the same (session 53).
    x = np.concatenate([np.arange(50.0), [-2.71828], np.arange(3.0)])
    with pytest.raises(ValueError) as want:
        checked(x)
    with pytest.raises(ValueError) as got:
        jitted(x)
    assert str(got.value) == str(want.value) == "x[50] = -2.718 is negative"
    assert jitted(np.arange(4.0)) == 6.0


def returns_text(x):
    return x * 2, f"mean {x.mean():.2f}"


def test_returned_text_is_refused():
    with pytest.raises(jc.ConcretizationError, match=r"'mean \{\.\.\.\}' formats a traced value"):
        jc.jit(returns_text)(np.ones(3))


def test_text_of_static_values_is_python_text():
    f = jc.jit(lambda x: (x + 1, f"{x.shape} {x.dtype} {len(x)}"))
    assert f(np.ones(2))[1] == "(2,) float64 2"


def test_jitcores_messages_name_values_by_their_repr():
    def needs_int(x):
        return np.zeros(int(x.sum()))

    with pytest.raises(jc.ConcretizationError) as info:
        jc.jit(needs_int)(np.ones(2))
    assert "Traced<i64[]>" in str(info.value)
    assert not formatting.holds(str(info.value))


def _says(x, n):
    print(str(n) + "!", repr(x.sum()), f"{x[0]!r}", str(x))
    return x * 2


def test_str_and_repr_of_traced_values_print_each_calls_values(capsys):
    # Found by a new-user program (session 42): str(n) and repr(x.sum()) gave "Traced<i64[]>".
    assert_prints_as_numpy(capsys, _says, jc.jit(_says), [(np.arange(3.0), n) for n in (9, 9, 7)])


def test_text_of_an_int_argument_returned_makes_it_static():
    f = jc.jit(lambda x, n: str(n) + "!")
    assert f(np.ones(2), 9) == "9!" and f(np.ones(2), 10) == "10!"


def printf_style(x, flag):
    print("%.2f" % x.sum())
    print("mean %.3f, max %d, n=%s %r%%" % (x.mean(), x.argmax(), x.size, x[0]))
    print("%(a)8.3e|%(b)-5d|%(c)+06.1f" % {"a": x[1], "b": 7, "c": x[-1]})
    print("d=%d b=%d %5.1f %+.1f %x %o %s" % (x.sum(), x[0] > 0, 2.25, x[2], x.size * 3, x.size, flag))
    return "static %d" % x.size


def test_printf_style_formatting_of_traced_values_prints_at_each_call(capsys):
    """``"%.3f" % loss`` called ``float()`` of the traced value (an error naming math.sqrt);
    now each conversion is filled in at each call, as an f-string's field is."""
    calls = [(np.arange(1.0, 6.0), True), (np.array([-2.5, 0.0, 7.25, 1e10]), False),
             (np.arange(1.0, 6.0) * -1.5, True)]
    assert_prints_as_numpy(capsys, printf_style, jc.jit(printf_style), calls)
    assert jc.jit(printf_style)(*calls[0]) == printf_style(*calls[0])


def test_printf_style_text_returned_is_refused_and_python_errors_stay_pythons():
    with pytest.raises(jc.JitcoreError):
        jc.jit(lambda x: "%.2f" % x.sum())(np.ones(3))
    with pytest.raises(TypeError):
        jc.jit(lambda x: print("%f %f" % (x.sum(),)))(np.ones(3))


def printed_with_options(w):
    with np.printoptions(precision=3, suppress=True):
        print("weights:", w / w.sum())
    print("after:", w / w.sum())


def test_print_options_the_function_sets_apply_to_its_prints(capsys):
    """``with np.printoptions(precision=3): print(w)`` printed with the caller's options: the
    print ran later, at call time, outside the ``with``."""
    calls = [(np.array([1.0, 2.0, 3.3333333]),), (np.array([1e-9, 1.0, 2.0 / 3.0]),)]
    assert_prints_as_numpy(capsys, printed_with_options, jc.jit(printed_with_options), calls)
    with np.printoptions(precision=4):
        assert_prints_as_numpy(capsys, printed_with_options, jc.jit(printed_with_options), calls)


def printed_python_numbers(P):
    print(str(P[0, 0]), P.mean(0).tolist(), [float(v) for v in P[0]], repr(P[0, 0]), P[0, 0])
    print("%s and %s" % (P[1, 1], float(P[1, 0])))


def test_python_numbers_print_as_pythons_and_str_of_a_float32_as_its_own(capsys):
    """``print([float(v) for v in x])`` printed ``np.float64(0.5)`` (the values reached the
    callback as NumPy scalars), and ``str()`` of a float32 scalar its float64 digits."""
    calls = [(np.array([[1.6161387, 2.0], [0.5, 1.0]], np.float32),), (np.array([[0.1, 0.2], [0.3, 0.7]]),)]
    assert_prints_as_numpy(capsys, printed_python_numbers, jc.jit(printed_python_numbers), calls)
