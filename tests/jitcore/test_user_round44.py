"""Round 44's new users (lead-out t44, h1..h5): what they met, each checked against NumPy or,
where jitcore refuses on purpose, checked to be jitcore's own error with a message that says
what to do."""

from __future__ import annotations

import numpy as np
import pytest

import jitcore as jc


@pytest.mark.parametrize("fn", [
    lambda m: np.where(m, "#", "."),
    lambda m: np.where(m, 1.0, "x"),
    lambda m: np.where(m, b"#", b"."),
], ids=["str", "str-and-number", "bytes"])
def test_string_choices_are_refused_with_advice(fn):
    with pytest.raises(jc.JitTypeError, match="string arrays .* not supported under jit.*codes"):
        jc.jit(fn)(np.array([True, False]))


@pytest.mark.parametrize("fn", [lambda x: x[::2].base is x, lambda x: x.data.nbytes,
                                lambda x: x.strides], ids=["base", "data", "strides"])
def test_memory_properties_are_refused_with_advice(fn):
    with pytest.raises(jc.UnsupportedError, match="property of an array's memory"):
        jc.jit(fn)(np.arange(8.0))


def _scale(v, s):
    return v * s if np.isscalar(v) else v / s


@pytest.mark.parametrize("fn", [
    lambda x: np.isscalar(x[0]), lambda x: np.isscalar(x.sum()), lambda x: np.isscalar(x),
    lambda x: np.isscalar(np.asarray(x.sum())), lambda x: np.isscalar(x[0] * 2.0),
    lambda x: (np.isscalar(x[:1]), np.isscalar(3), np.isscalar(np.float32(1.0))),
    lambda x: _scale(x[1], 4.0), lambda x: _scale(x, 4.0),
], ids=["item", "sum", "array", "0-d", "arithmetic", "static", "helper-scalar", "helper-array"])
def test_isscalar_of_traced_values_is_numpys(fn):
    x = np.arange(4.0)
    assert np.array_equal(jc.jit(fn)(x), fn(x))


def test_isscalar_of_a_python_number_argument():
    fn = lambda x, s: (np.isscalar(s), np.isscalar(s + 1))  # noqa: E731
    assert jc.jit(fn)(np.arange(3.0), 2.0) == (True, True)


def _none_on_one_path(x):
    s = x.sum()
    if s > 10:
        return None
    return s


def _report(x):
    ok = x.sum() > 1
    return "converged" if ok else "failed"


def _symbol(x):
    if x[0] > 0:
        s = "#"
    else:
        s = "."
    return s


def _shuffled(x, rng):
    a = [x[0], x[1]]  # (an array shuffles since misc56)
    rng.shuffle(a)
    return a[0]


@pytest.mark.parametrize("fn, args, error, words", [
    (_none_on_one_path, (), jc.JitTypeError, r"return <array or number> against return None\)"),
    (_report, (), jc.JitTypeError, "is a str.*string chosen by traced data.*choose the text outside"),
    (_symbol, (), jc.JitTypeError, "string chosen by traced data.*outside the jitted function"),
    (_shuffled, (np.random.default_rng(0),), jc.UnsupportedError, r"a = rng.permutation\(a\)"),
], ids=["none-on-one-path", "str-chosen", "str-variable", "shuffle"])
def test_messages_say_what_to_do(fn, args, error, words):
    with pytest.raises(error, match=words) as info:
        jc.jit(fn)(np.arange(5.0), *args)
    assert "'*'" not in str(info.value)


_PYTHON_NUMBERS = {"True": lambda x: True, "1": lambda x: 1, "2.5": lambda x: 2.5, "1j": lambda x: 1j,
                   "bool(t)": lambda x: bool(x[0] > 0), "int(t)": lambda x: int(x[0]),
                   "float(t)": lambda x: float(x[0]), "complex(t)": lambda x: complex(x[0])}
_OPERATORS = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
              "/": lambda a, b: a / b, "//": lambda a, b: a // b, "%": lambda a, b: a % b,
              "**": lambda a, b: a ** b, "&": lambda a, b: a & b, "|": lambda a, b: a | b,
              "<": lambda a, b: a < b, "==": lambda a, b: a == b}


@pytest.mark.parametrize("op", list(_OPERATORS))
def test_python_numbers_combine_as_in_python(op):
    """Weak (Python) bools, ints, floats and complex numbers among themselves, one of them traced:
    Python's result type (True + int(t) is an int) and Python's TypeErrors (no order of complex
    numbers, no & of floats). Values compare exactly except powers to a float exponent."""
    x = np.array([2.0, -1.0])
    for (a_name, a), (b_name, b) in [(p, q) for p in _PYTHON_NUMBERS.items() for q in _PYTHON_NUMBERS.items()
                                     if "t)" in p[0] or "t)" in q[0]]:
        fn = lambda x, a=a, b=b: _OPERATORS[op](a(x), b(x))  # noqa: E731
        try:
            want = fn(x)
        except (TypeError, ZeroDivisionError) as e:
            with pytest.raises(type(e) if isinstance(e, TypeError) else Exception):
                jc.jit(fn)(x)
            continue
        got = jc.jit(fn)(x)
        assert type(got) is type(want), (a_name, op, b_name, got, want)
        if op == "**" and isinstance(want, (float, complex)):
            assert got == pytest.approx(want, rel=1e-15), (a_name, op, b_name)
        else:
            assert got == want, (a_name, op, b_name)


_DRAWS = {
    "standard_normal-size()": lambda r: r.standard_normal(size=()),
    "random-size()": lambda r: r.random(size=()),
    "normal-size()": lambda r: r.normal(0, 1, size=()),
    "integers-size()": lambda r: r.integers(0, 5, size=()),
    "integers-int32-size()": lambda r: r.integers(5, dtype=np.int32, size=()),
    "integers-bool": lambda r: r.integers(2, dtype=bool),
    "integers-bool-size": lambda r: r.integers(2, dtype=bool, size=3),
    "integers-int8": lambda r: r.integers(5, dtype=np.int8),
    "integers-uint64": lambda r: r.integers(5, dtype=np.uint64),
    "choice-of-floats": lambda r: r.choice([1.5, 2.5]), "choice-int": lambda r: r.choice(5),
    "random": lambda r: r.random(), "random-float32": lambda r: r.random(dtype=np.float32),
    "poisson": lambda r: r.poisson(3.0), "gamma": lambda r: r.gamma(2.0),
    "in-a-loop-size()": lambda r: [r.standard_normal(size=()) for _ in range(2)][1],
}


@pytest.mark.parametrize("name", list(_DRAWS))
def test_scalar_and_size_empty_draws_have_numpys_type(name):
    want = _DRAWS[name](np.random.default_rng(0))
    got = jc.jit(_DRAWS[name])(np.random.default_rng(0))
    assert type(got) is type(want) and np.shape(got) == np.shape(want) and np.array_equal(got, want)


@pytest.mark.parametrize("draw", [lambda: np.random.randint(2, dtype=bool),
                                  lambda: np.random.choice([1.5, 2.5]),
                                  lambda: np.random.normal(size=()), lambda: np.random.random(size=())],
                         ids=["randint-bool", "choice-of-floats", "normal-size()", "random-size()"])
def test_legacy_scalar_and_size_empty_draws_have_numpys_type(draw):
    np.random.seed(1)
    want = draw()
    np.random.seed(1)
    got = jc.jit(lambda x: draw())(np.zeros(1))
    assert type(got) is type(want) and np.array_equal(got, want)


def _masked_powers(z, alive):
    """The operator on a selection, as Mandelbrot's z[alive] = z[alive] ** 2 + c[alive]."""
    outs = []
    for k in range(4):
        o = np.zeros_like(z)
        sel = z[alive]
        o[alive] = (sel ** 2, sel ** -1, sel ** 2 + z[alive], 1.0 / sel ** 2)[k]
        outs.append(o)
    return tuple(outs)


@pytest.mark.parametrize("dtype", [np.complex128, np.complex64, np.float64, np.float32])
def test_powers_of_a_masked_selection_are_numpys_operator(dtype):
    """NumPy's ``**`` of an array takes np.square (np.reciprocal) for the exponent 2 (-1), which
    differ from its power loop in the last bit for complex numbers: a selection's ``**`` too."""
    rng = np.random.default_rng(4)
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e300, -1e-310, 1.5, -2.5])
    if np.dtype(dtype).kind == "c":
        z = (rng.standard_normal(3000) + 1j * rng.standard_normal(3000)).astype(dtype)
        z[:81] = (special[:, None] + 1j * special[None, :]).ravel()
    else:
        z = rng.standard_normal(3000).astype(dtype)
        z[:9] = special
    alive = rng.random(3000) < 0.7
    alive[:81] = True
    with np.errstate(all="ignore"):
        want = _masked_powers(z, alive)
    for w, g in zip(want, jc.jit(_masked_powers)(z, alive)):
        assert g.dtype == w.dtype and np.array_equal(w.view(np.uint8), g.view(np.uint8))


def _out_methods(x):
    """Each method with out= into a local array, as its function form np.f(x, out=o) works."""
    o = [np.zeros(3), np.zeros(3), np.zeros(4), np.zeros(3), np.zeros(3), np.zeros(4), np.zeros(3),
         np.zeros((3, 4)), np.zeros((3, 4)), np.zeros(3, np.int64), np.zeros(4, np.int64),
         np.zeros((3, 4)), np.zeros((3, 4)), np.zeros((3, 4)), np.zeros(3, bool)]
    x.sum(axis=1, out=o[0])
    x.max(axis=1, out=o[1])
    x.min(axis=0, out=o[2])
    x.mean(axis=1, out=o[3])
    x.std(axis=1, out=o[4])
    x.var(axis=0, ddof=1, out=o[5])
    x.prod(axis=1, out=o[6])
    x.cumsum(axis=1, out=o[7])
    x.cumprod(axis=1, out=o[8])
    x.argmax(axis=1, out=o[9])
    x.argmin(axis=0, out=o[10])
    x.clip(-1, 2, out=o[11])
    x.round(1, out=o[12])
    np.round(x, out=o[13])
    (x > 0).any(axis=1, out=o[14])
    return o


def _out_names(x):
    s = np.zeros(3)
    r = np.zeros((3, 4))
    x.sum(axis=1, out=s)
    x.round(2, out=r)
    return s, r


def test_methods_write_out_into_a_local_array():
    x = np.arange(12.0).reshape(3, 4) / 7 - 0.8
    for got, want in zip(jc.jit(_out_methods)(x), _out_methods(x)):
        assert got.dtype == want.dtype and np.array_equal(got, want)
    for got, want in zip(jc.jit(_out_names)(x), _out_names(x)):
        assert np.array_equal(got, want)


def test_round_out_into_an_argument():
    def fn(x, o):
        x.round(1, out=o)
        np.round(x, 2, out=x)
        return o

    x, o = np.arange(6.0) / 7, np.zeros(6)
    x2, o2 = x.copy(), o.copy()
    assert np.array_equal(jc.jit(fn)(x2, o2), fn(x, o))
    assert np.array_equal(x2, x) and np.array_equal(o2, o)


def test_round_out_of_another_dtype_is_refused():
    def fn(x):
        o = np.zeros(3, np.float32)
        x.round(1, out=o)
        return o

    with pytest.raises(jc.UnsupportedError, match="assign the result instead"):
        jc.jit(fn)(np.arange(3.0))


def _write_window(x):
    w = np.lib.stride_tricks.sliding_window_view(x, 3)
    w[0, 0] = -1.0
    return w.sum()


def _write_window_part(x):
    w = np.lib.stride_tricks.sliding_window_view(x, 3)
    w[1:][0] += 1
    return w


@pytest.mark.parametrize("fn", [_write_window, _write_window_part], ids=["element", "part"])
def test_a_write_into_sliding_windows_raises_numpys_error(fn):
    with pytest.raises(ValueError, match="read-only"):
        fn(np.arange(5.0))
    with pytest.raises(jc.JitValueError, match="assignment destination is read-only"):
        jc.jit(fn)(np.arange(5.0))


def test_sliding_windows_see_a_later_write_to_their_array():
    def fn(x):
        w = np.lib.stride_tricks.sliding_window_view(x, 2)
        x[0] = 100.0
        return w.sum(axis=1), w.mean()

    for got, want in zip(jc.jit(fn)(np.arange(5.0)), fn(np.arange(5.0))):
        assert np.array_equal(got, want)


def _permutation(rng, n):
    return rng.permutation(n)


def _lottery(rng, n, k):
    return rng.choice(n, k, replace=False)


def _choices(rng, n, k):
    return rng.choice(n, k)


@pytest.mark.parametrize("fn, args", [(_permutation, (10,)), (_permutation, (7,)), (_lottery, (10, 3)),
                                      (_choices, (10, 3))], ids=["permutation", "again", "lottery", "choice"])
def test_draws_of_n_items_make_n_static(fn, args):
    jitted = jc.jit(fn)
    assert np.array_equal(jitted(np.random.default_rng(0), *args), fn(np.random.default_rng(0), *args))


def test_legacy_permutation_of_n_makes_n_static():
    def fn(n):
        return np.random.permutation(n)

    np.random.seed(0)
    got = jc.jit(fn)(10)
    np.random.seed(0)
    assert np.array_equal(got, fn(10))


def test_permutation_of_an_integer_from_data_says_what_to_do():
    with pytest.raises(jc.UnsupportedError, match="traced integer n.*static argument"):
        jc.jit(lambda rng, x: rng.permutation(int(x.sum())))(np.random.default_rng(0), np.arange(4))


def _break_in_except(A, b, n):
    x = b
    for _ in range(n):
        try:
            x = np.linalg.solve(A, x)
        except np.linalg.LinAlgError:
            break
    return x


def _continue_in_except(A, b, n):
    x, s = b, 0.0
    for _ in range(n):
        try:
            x = np.linalg.solve(A, x)
        except np.linalg.LinAlgError:
            continue
        s += x.sum()
    return x, s


def _rayleigh_quotient_iteration(A, x, iters):
    for _ in range(iters):
        mu = x @ A @ x
        try:
            y = np.linalg.solve(A - mu * np.eye(A.shape[0]), x)
        except np.linalg.LinAlgError:
            break
        x = y / np.linalg.norm(y)
    return x


@pytest.mark.parametrize("fn, args", [
    (_break_in_except, (2 * np.eye(2), np.ones(2), 3)),
    (_continue_in_except, (2 * np.eye(2), np.ones(2), 3)),
    (_rayleigh_quotient_iteration, (np.array([[2.0, 1.0], [1.0, 3.0]]), np.array([1.0, 0.0]), 3)),
], ids=["break", "continue", "rayleigh-quotient"])
def test_break_and_continue_in_an_except_clause_of_a_loop(fn, args):
    got, want = jc.jit(fn)(*args), fn(*args)
    for g, w in zip(got if isinstance(got, tuple) else (got,), want if isinstance(want, tuple) else (want,)):
        assert np.allclose(g, w, rtol=1e-14, atol=0)


def _apply_ops(x, ops):
    for o in ops:
        if o == "double":
            x = x * 2
    return x


def test_a_list_of_strings_argument_is_told_to_be_a_static_tuple():
    # its strings are static on demand where they sit (misc56); without that, JAX's advice
    np.testing.assert_array_equal(jc.jit(_apply_ops)(np.ones(2), ["double", "x"]), [2.0, 2.0])
    with jc.config.using(auto_static=False), \
            pytest.raises(jc.JitTypeError, match=r"pass ops as a tuple \(tuple\(ops\)\) with static_argnums"):
        jc.jit(_apply_ops)(np.ones(2), ["double", "x"])
    with pytest.raises(jc.JitTypeError, match=r"got ops=list: pass a list as a tuple"):
        jc.jit(_apply_ops, static_argnames=("ops",))(np.ones(2), ["double", "x"])
    got = jc.jit(_apply_ops, static_argnames=("ops",))(np.ones(2), ("double", "x"))
    np.testing.assert_array_equal(got, _apply_ops(np.ones(2), ("double", "x")))
