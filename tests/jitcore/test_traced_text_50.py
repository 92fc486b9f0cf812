"""Text made from traced values inside a jitted function (``f"{a.sum():.3f}"``, ``str(int(k))``,
``format(k, 'b')``, ``"%.2f" % x``, ``bin(k)``, ``"+" if d >= 0 else "-"``) is a TracedText
(jitcore/traced_text.py): what str operations make of it is printed exactly as Python prints it
(made at each call), and what needs its characters (len, ==, in, s[0], float(s), a dict key) is
refused, never computed on jitcore's placeholder. Differential against plain Python."""
# ruff: noqa: UP031  (printf-style formatting is what some tests test)

import contextlib
import io
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import jitcore as jc
from jitcore.traced_text import _DEFERRED, _MACHINERY, TracedText

_SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))


def _run(fn, *args):
    """(result or the error's type, printed text) of ``fn(*args)``."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            result = fn(*args)
        except Exception as e:  # noqa: BLE001  (the error is compared)
            result = type(e)
    return result, out.getvalue()


def assert_same(fn, jitted, *args):
    want, want_text = _run(fn, *args)
    got, got_text = _run(jitted, *args)
    assert got_text == want_text, args
    if isinstance(want, type):
        assert isinstance(got, type) and issubclass(got, want), (got, want)
    else:
        np.testing.assert_array_equal(got, want)
        assert type(got) is type(want)
    assert "\ue000" not in got_text


# -- the reports' programs: printed text, byte for byte ------------------------------------------
def label_table(p):  # REPORT h1 1.1: repro_fmt_len.py, repro_fmt_width.py
    i = np.argmax(p)
    s = format(int(i), 'b')
    t = str(int(i))
    print(f"[{s:>6}]", s.rjust(6), s.zfill(3), t.zfill(4), s.upper(), repr(s), f"{s!r:>8}")
    print(f"[{format(int(i), '03b'):>6}]", f"[{str(int(i)):>6}]", f"[{int(i):>6}]")
    print("[" + s.rjust(6) + "]", "%5s|%-4s|" % (t, s), "{:^7}|{}".format(s, t), "-".join([s, t, "x"]))  # noqa: UP032
    return p


def summary(a):  # REPORT h2 A4, and what a printed table does with numbers' text
    s = f"{a.sum():.3f}"
    u = "%.2f" % a.max()
    print(s.rjust(10) + "|", f"{s:>10}|{u:<8}|{u:^9}|", (s + " / " + u).center(24, "."))
    print(s.replace(".", ","), ("~" + s).ljust(9, "_"), (s * 2).strip("0"), str(s), f"{s}")
    print(f"{u:>12} {s!r}", "%-9s%r" % (u, s), s.title(), s.removeprefix("-"))
    return a.sum()


@pytest.mark.parametrize("p", [np.array([0.1, 0.5, 0.2]), np.array([0.0, 0.1, 0.2, 0.3, 0.9, 0.1]),
                               np.array([1.0])])
def test_label_table_prints_as_python(p):
    assert_same(label_table, jc.jit(label_table), p)


@pytest.mark.parametrize("a", [np.array([1.23456, 2.0]), np.array([-1e300, 5e299]), np.array([np.nan, 1.0]),
                               np.array([-np.inf, 0.0]), np.array([-0.0]), np.array([123456789.125])])
def test_summary_prints_as_python(a):
    jitted = jc.jit(summary)
    assert_same(summary, jitted, a)
    assert_same(summary, jitted, a * 3)  # the same code: the text is made at each call
    assert jitted.cache_info().compiles == 1


# -- hypothesis: values, format specs, widths, alignment ------------------------------------------
_SPECS = ["", ".3f", "+.2e", ".4g", ",.1f", "10.3f", "<10", "^12.5g", "08.2f", ".0%"]
_FLOATS = st.floats(allow_nan=True, allow_infinity=True, width=64) | st.sampled_from(
    [0.0, -0.0, math.nan, math.inf, -math.inf, 1e308, -5e-324, 0.5, 2.5, -1234.5678])


def _padded(spec):
    def f(a):
        s = format(a[0], spec)
        print(f"[{s:>14}][{s:<13}][{s:^15}][{s:*^16}]", s.rjust(14), s.ljust(11, "-"), s.center(17),
              s.zfill(15), s.upper(), s.lower(), s.strip(), s.replace("e", "E"), s.swapcase())
        print("%14s|%-13s|%.3s" % (s, s, s), f"{s:>20}", ", ".join([s, s.zfill(12)]))
        return a
    return f


@pytest.mark.parametrize("spec", _SPECS)
def test_padding_and_methods_of_formatted_floats_hypothesis(spec):
    f = _padded(spec)
    jitted = jc.jit(f)

    @_SETTINGS
    @given(_FLOATS)
    def check(v):
        assert_same(f, jitted, np.array([v]))

    check()


_INTS = st.integers(-(2 ** 63), 2 ** 63 - 1) | st.sampled_from([0, -1, 1, 255, -256, 2 ** 63 - 1, -(2 ** 63)])


def int_labels(k):
    n = int(k[0])
    print(bin(n), hex(n), oct(n), bin(k[1]), hex(k[1]), oct(k[1]))
    print(f"{bin(n):>70}|", hex(n).upper(), oct(n).zfill(26), format(n, "b").rjust(66, "0"), str(n).zfill(21))
    print(f"{n:#b}", "%x|%-6o|%+d" % (n, n, n), str(k[1]).center(24))
    return k


@_SETTINGS
@given(_INTS, _INTS)
def test_bin_hex_oct_of_traced_ints_hypothesis(a, b):
    assert_same(int_labels, _jitted_int_labels, np.array([a, b], dtype=np.int64))


_jitted_int_labels = jc.jit(int_labels)


def test_bin_of_unsigned_and_bool_and_float():
    def f(u, x):
        print(bin(u[0]), hex(u[0]), oct(u[0]), bin(bool(x[0] > 0)), hex(int(x[0])))
        return u
    for u, x in [(np.array([2 ** 64 - 1], np.uint64), np.array([1.5])),
                 (np.array([0], np.uint64), np.array([-2.0]))]:
        assert_same(f, jc.jit(f), u, x)

    def g(x):
        return bin(x[0])  # a float: Python's TypeError, not a concretization's
    assert_same(g, jc.jit(g), np.array([1.5]))


# -- a text chosen by a traced condition: printed, the one picked at each call --------------------
def stars_table(d, p):
    for k in range(d.shape[0]):  # a compiled loop where d is long
        sign = "+" if d[k] >= 0 else "-"
        stars = "***" if p[k] < 0.001 else "**" if p[k] < 0.01 else "*" if p[k] < 0.05 else ""
        label = f"{d[k]:.2f}"
        print(f"{k:>2} {sign}{abs(d[k]):6.3f} {stars:<3}| {('big' if abs(d[k]) > 1 else 'small'):>6}",
              (label if p[k] < 0.5 else "n/a").rjust(9), f"run {'converged' if d[k] > 0 else 'failed'}")
    return d


@_SETTINGS
@given(st.lists(st.tuples(_FLOATS, st.floats(0, 1)), min_size=1, max_size=7))
def test_text_chosen_by_a_traced_condition_prints_as_python_hypothesis(rows):
    d, p = np.array([r[0] for r in rows]), np.array([r[1] for r in rows])
    assert_same(stars_table, _jitted_stars, d, p)


_jitted_stars = jc.jit(stars_table)


def test_a_chosen_text_returned_or_measured_is_refused():
    def returned(x):
        return "constant" if x[0] > 0.5 else "balanced"

    def measured(x):
        return len("+" if x[0] > 0 else "-")

    def made_inside(x):
        return print(f"{x.mean():.2f}" if x[0] > 0 else "n/a")

    def mixed(x):
        return print("yes" if x[0] > 0 else 1)
    with pytest.raises(jc.JitTypeError, match="string chosen by traced data.*choose the text outside"):
        jc.jit(returned)(np.ones(2))
    with pytest.raises(jc.ConcretizationError, match="len()"):
        jc.jit(measured)(np.ones(2))
    with pytest.raises(jc.ConcretizationError, match="computed inside one side.*Compute the value before"):
        jc.jit(made_inside)(np.ones(2))
    with pytest.raises(jc.JitTypeError, match="gives a str on one side and a int"):
        jc.jit(mixed)(np.ones(2))


# -- what needs the text's characters: refused, naming the operation ------------------------------
_REFUSED = {
    "len()": lambda s: len(s),
    "==": lambda s: s == "2.0",
    "!=": lambda s: s != "2.0",
    "<": lambda s: s < "3",
    "'in'": lambda s: "." in s,
    "in a text": lambda s: s in "2.000",
    "in a list": lambda s: s in ["2.0", "1.0"],
    r"indexing \(s\[i\]\)": lambda s: s[0],
    "iterating over it": lambda s: list(s),
    r"float\(\)": lambda s: float(s),
    r"int\(\)": lambda s: int(s),
    "a dict key": lambda s: {s: 1},
    "a set item": lambda s: {s},
    r"str.split\(\)": lambda s: s.split("."),
    r"str.startswith\(\)": lambda s: s.startswith("2"),
    r"str.find\(\)": lambda s: s.find("."),
    r"str.count\(\)": lambda s: s.count("0"),
    r"str.isdigit\(\)": lambda s: s.isdigit(),
    r"str.encode\(\)": lambda s: s.encode(),
    r"its truth": lambda s: "yes" if s else "no",
    r"str.count\(\) .*plain": lambda s: "2.000".count(s),
    r"ord\(\)": lambda s: ord(s),
    r"int\(\) .*base": lambda s: int(s, 16),
    r"float\(\) given it": lambda s: float("%s" % s),
}


@pytest.mark.parametrize("what", list(_REFUSED))
def test_reading_the_characters_is_refused(what):
    op = _REFUSED[what]

    def f(a):
        return op(f"{a.max():.1f}")

    _run(f, np.array([1.0, 2.0]))  # Python gives an answer or its own error
    with pytest.raises(jc.ConcretizationError, match=what.split(" ")[0]) as info:
        jc.jit(f)(np.array([1.0, 2.0]))
    assert "test_traced_text_50.py" in str(info.value)  # where, in the user's code


def test_report_h2_section_a():
    x = np.array([1.23456, 2.0])
    for fn in (lambda a: len(f"{a.sum():.3f}"), lambda a: f"{a.max():.1f}" == "2.0",
               lambda a: len(str(a.sum())), lambda a: float("%.2f" % a.sum()),
               lambda a: "." in f"{a.sum():.2f}"):
        with pytest.raises(jc.ConcretizationError, match="text made from a traced value"):
            jc.jit(fn)(x)

    def rjust(a):
        print(f"{a.sum():.3f}".rjust(10) + "|")
    assert_same(rjust, jc.jit(rjust), x)


def test_returned_text_is_refused_as_before():
    def label(p):
        i = int(np.argmax(p))
        s = format(i, "02b")
        return {s: p.max()}, s  # (repro_fmt_key.py: a dict key of it is refused first)

    def returned(p):
        return format(int(np.argmax(p)), "02b").rjust(4)
    with pytest.raises(jc.ConcretizationError, match="a dict key"):
        jc.jit(label)(np.array([0.1, 0.5]))
    with pytest.raises(jc.ConcretizationError, match="returned by returned"):
        jc.jit(returned)(np.array([0.1, 0.5]))


def test_a_traced_width_or_repeat_is_refused():
    def width(a, n):
        print(f"{a.sum():.2f}".rjust(n[0]))

    def repeat(a, n):
        print(f"{a.sum():.2f}" * n[0])
    for fn in (width, repeat):
        with pytest.raises(jc.ConcretizationError, match="traced"):
            jc.jit(fn)(np.ones(2), np.array([5]))


def test_python_errors_of_wrong_arguments_are_raised_while_tracing():
    def f(a):
        return f"{a.sum():.2f}".rjust("8")  # TypeError, as Python's
    assert_same(f, jc.jit(f), np.ones(2))


def test_every_str_operation_is_joined_deferred_or_refused():
    """By construction: TracedText defines every name str has (a new one refused by default),
    so no str method reads the placeholder as if it were the text."""
    for name in dir(str):
        if name not in _MACHINERY:
            assert name in TracedText.__dict__, name
    for name in ("__float__", "__int__", "__complex__", "__bool__", "__hash__"):
        assert name in TracedText.__dict__, name
    assert set(_DEFERRED) <= set(dir(str))


def levels(d, p):
    for k in range(d.shape[0]):  # a compiled loop; the ifs' conditions are traced
        v = d[k]
        lab = "mid"
        if p[k] < 0.3:
            lab = "low"
        elif p[k] > 0.7:
            lab = "high"
        if v >= 0:
            sign, tag = "+", f"{v:.1f}"
        else:
            sign, tag = "-", "neg"
        print(f"{lab:>5}|{sign}|{tag:^9}|", lab.upper(), ("!" if v > 1 else "") + tag)
    return d


@_SETTINGS
@given(st.lists(st.tuples(_FLOATS, st.floats(0, 1)), min_size=1, max_size=7))
def test_text_assigned_in_a_traced_if_statement_prints_as_python_hypothesis(rows):
    d, p = np.array([r[0] for r in rows]), np.array([r[1] for r in rows])
    assert_same(levels, _jitted_levels, d, p)


_jitted_levels = jc.jit(levels)


def test_text_of_a_traced_if_statement_returned_or_mixed_is_refused():
    def returned(x):
        if x[0] > 0:
            s = "#"
        else:
            s = "."
        return s

    def mixed(x):
        s = "none"
        if x[0] > 0:
            s = 1
        print(s)

    def inner(x):
        if x[0] > 0:
            s = f"{x.sum():.2f}"
        else:
            s = "n/a"
        print(s)
    with pytest.raises(jc.JitTypeError, match="string chosen by traced data"):
        jc.jit(returned)(np.ones(2))
    with pytest.raises(jc.UnsupportedError, match="'s' holds a"):
        jc.jit(mixed)(np.ones(2))
    with pytest.raises(jc.ConcretizationError, match="computed inside a branch of the if"):
        jc.jit(inner)(np.ones(2))
