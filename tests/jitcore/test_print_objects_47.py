"""``print`` of the user's objects whose text shows traced values (session 47; new user h1's
W1): a class whose ``__repr__``/``__str__`` formats an array attribute, a dataclass holding an
array, such objects inside lists and dicts, next to traced values. Before, the object's text
was made when the compiled code ran, and showed jitcore's placeholders
(``P(x=\\ue0000\\ue001Traced<f64[]>\\ue002)``); now it is made while tracing and filled in at
each call, as an f-string is."""

import dataclasses

import numpy as np
import pytest

import jitcore as jc


class P:
    def __init__(self, v):
        self.v = v

    def __repr__(self):
        return f"P(x={self.v[0]:.3f})"


class S:
    def __init__(self, v):
        self.v = v

    def __str__(self):
        return "S(" + str(self.v) + ")"


@dataclasses.dataclass
class State:
    pose: np.ndarray
    vel: float
    name: str = "r1"


def obj(v):
    print(P(v))
    return v


def str_of_array(v):
    print(S(v * 2))
    return v


def in_a_list(v):
    print([P(v), v[0]], {"p": P(v), "n": 3})
    return v


def with_sep(v):
    print("obj:", P(v), v, sep=" | ")
    return v


def dataclass_state(v):
    s = State(v * 2, float(v[0]))
    print(s)
    print("state", [s, s.vel])
    return v


def in_a_loop(v, n):
    for i in range(n):  # a compiled loop: the text at each step, with that step's values
        v = v * 0.5
        if v[0] < 0.3:
            print(i, P(v))
    return v


CASES = [(obj, ()), (str_of_array, ()), (in_a_list, ()), (with_sep, ()), (dataclass_state, ())]


def printed(fn, *args, capsys):
    fn(*args)
    return capsys.readouterr().out


@pytest.mark.parametrize("fn, extra", CASES, ids=[f.__name__ for f, _ in CASES])
def test_objects_print_as_numpys_at_each_call(fn, extra, capsys):
    jf = jc.jit(fn)
    for v in (np.array([1.0, 2.0]), np.array([-0.5, 3.25]), np.array([1.5, 2.5])):
        want = printed(fn, v, *extra, capsys=capsys)
        got = printed(jf, v, *extra, capsys=capsys)
        assert got == want
        assert "\ue000" not in got and "Traced" not in got


def test_objects_printed_in_a_compiled_loop(capsys):
    jf = jc.jit(in_a_loop)
    for n in (3, 200):
        v = np.array([1.0, 4.0])
        want = printed(in_a_loop, v, n, capsys=capsys)
        got = printed(jf, v, n, capsys=capsys)
        assert got == want


def test_an_object_without_traced_text_prints_as_python(capsys):
    class Plain:
        def __repr__(self):
            return "<plain>"

    def f(x):
        print(Plain(), x.sum())
        return x

    want = printed(f, np.arange(3.0), capsys=capsys)
    assert printed(jc.jit(f), np.arange(3.0), capsys=capsys) == want


SOURCE = '''
def shows(x):
    print("mean", x.mean())
    return x.sum()
def formats(x):
    print(f"mean {x.mean():.3f}")
    return x.sum()
def quiet(x):
    print("no values here")
    return x.sum()
'''


@pytest.mark.parametrize("name", ["shows", "formats"])
def test_a_function_without_source_that_prints_a_traced_value_is_refused(name):
    # (traced as is: its print runs once, while compiling; before, it printed the placeholder)
    space = {"np": np}
    exec(compile(SOURCE, "<string>", "exec"), space)
    with pytest.raises(jc.UnsupportedError, match="could not give jitcore this function's source"):
        jc.jit(space[name])(np.arange(5.0))


def test_a_function_without_source_printing_no_traced_value_compiles(capsys):
    space = {"np": np}
    exec(compile(SOURCE, "<string>", "exec"), space)
    assert jc.jit(space["quiet"])(np.arange(5.0)) == 10.0
