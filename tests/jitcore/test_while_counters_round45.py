"""While loops on Python int counters (session 45; docs/control-flow.md, "While loops on Python
counters"): a ``while`` whose test compares affine functions of counters that the body steps
by constants (``while start + N <= len(x): ...; start += hop; k += 1``) has a trip count known
when it starts, and compiles as the ``for`` over that count, the counters affine in its index
(``x[start:start + N]`` a window), not as one copy of the body per step.

A loop that appends to a list next to an in-place write (``y[n] = v``; h1 S1) is compiled
as a loop too: the trial run that measures its appends now writes copies made in its own
block. And a short loop whose copies would hold more than ``UNROLL_OPS`` ops (frames of an
rfft, ~180 elementwise ops each; h1 S2) is a loop, not copies that fuse into one huge kernel.

Each program is checked against itself run by Python: results, their types, the arguments
after the call and the printed text; the loops that are not such loops (a break, a step under
an ``if``) run as before.
"""

from __future__ import annotations

import ast
import inspect
import sys
import textwrap
import warnings
from pathlib import Path

import numpy as np
import pytest

import jitcore as jc
from jitcore.autograph import analysis
from jitcore.errors import CompileTimeWarning

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
try:  # the programs the benchmark times (bench_loop_shapes.py while)
    from bench_loop_shapes import compressor, frames, pairwise, reversed_pairs, spectrum_sum
finally:
    sys.path.pop(0)


def check(f, *args, static=()):
    """``f`` jitted against ``f`` run by Python on copies of ``args``."""
    want_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    got_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    want = f(*want_args)
    got = jc.jit(f, static_argnums=static)(*got_args)
    for g, w in zip(*(v if isinstance(v, tuple) else (v,) for v in (got, want))):
        assert type(g) is type(w), (f.__name__, g, w)
        np.testing.assert_array_equal(g, w)
        assert np.shape(g) == np.shape(w) and np.asarray(g).dtype == np.asarray(w).dtype
    for g, w in zip(got_args, want_args):
        np.testing.assert_array_equal(g, w)
    return got


def traced(f, *args, static=()):
    with warnings.catch_warnings():
        warnings.simplefilter("error", CompileTimeWarning)  # (no warning of a long loop)
        return jc.jit(f, static_argnums=static).lower(*args).as_text("traced")


def frames_of_s3(x):  # the report's loop (h1 S3): a sum over frames, the counter returned
    acc = 0.0
    start = 0
    while start + 4 <= len(x):
        acc += np.sum(x[start:start + 4] ** 2)
        start += 2
    return acc, start


def test_a_long_frame_loop_is_one_loop_not_a_body_per_step():
    x = np.random.default_rng(0).standard_normal(8192)  # 4095 frames (156 s to compile before)
    for f, args, static in [(frames, (x, 4, 2), (1, 2)), (frames_of_s3, (x,), ()),
                            (pairwise, (x,), ()), (reversed_pairs, (x[:4000],), ())]:
        text = traced(f, *args, static=static)
        assert text.count('"scf.for"') == 1 and text.count("\n") < 200, (f.__name__, text[:2000])
        check(f, *args, static=static)


def test_the_window_is_a_gather_at_the_counter_as_in_the_for_loop():
    text = traced(frames, np.zeros(300), 8, 3, static=(1, 2))
    assert '"array.gather"' in text and '"array.dynamic_slice"' not in text


@pytest.mark.parametrize("n", [4, 5, 6, 7, 9, 140, 201])
def test_frames_at_every_length_are_pythons(n):
    x = np.random.default_rng(n).standard_normal(n)
    for N, hop in ((4, 2), (4, 1), (3, 5)):
        check(frames, x, N, hop, static=(1, 2))
    check(frames_of_s3, x)
    check(pairwise, x)
    check(reversed_pairs, x)


def test_one_compile_for_every_long_length():
    jitted = jc.jit(frames, static_argnums=(1, 2))
    for n in (140, 201, 300):
        x = np.arange(n, dtype=np.float64)
        got, want = jitted(x, 4, 2), frames(x, 4, 2)
        np.testing.assert_array_equal(got[0], want[0])
        assert got[1:] == want[1:] and type(got[1]) is int
    info = jitted.cache_info()
    assert (info.traces, info.compiles) == (3, 1), info


def greater_equal(x):
    s, i = 0.0, 0
    while len(x) - i >= 3:  # the counter with a negative coefficient
        s = s + x[i] * x[i + 2]
        i += 1
    return s, i


def doubled(x):
    out = np.zeros(len(x) // 2)
    k = 0
    while 2 * k + 1 < len(x):
        out[k] = x[2 * k] + x[2 * k + 1]
        k += 1
    return out, k


def downwards(x):
    out = np.zeros(len(x))
    j, m = len(x) - 1, 0
    while j > 0:
        out[m] = x[j]
        j -= 3
        m += 1
    return out, j, m


def read_after_step(x):
    out = np.zeros(len(x))
    start, k = 0, 0
    while start + 3 <= len(x):
        start += 3
        out[k] = x[start - 1]  # the counter after its step, within the same iteration
        k += 1
    return out, start, k


def two_in_the_test(x):
    out = np.zeros(len(x))
    i, j = 0, len(x) - 1
    while i + 1 < j - 1:  # both sides move: i up, j down
        out[i] = x[i] * x[j]
        i += 1
        j -= 1
    return out, i, j


def two_counters_meet(x):
    n, i, k = len(x), 0, 0
    s = 0.0
    while i + 1 < n:  # n is a counter too, stepped down: the sides meet twice as fast
        s = s + x[i] * x[n - 1]
        n -= 1
        i += 1
        k += 1
    return s, i, n, k


def writes_its_argument(x):
    start, k = 0, 0
    while start + 2 <= len(x):
        x[k] = x[start] + x[start + 1]
        start += 2
        k += 1
    return k


def with_inner_ifs(x):
    s = np.zeros(3)
    i, k = 0, 0
    while i + 2 < len(x):
        if x[i] > 0:  # traced ifs inside: a select, the counters unchanged
            if x[i + 1] > 0:
                s[0] += x[i + 2]
            else:
                s[1] += x[i + 2]
        else:
            s[2] += 1
        i += 2
        k += 1
    return s, i, k


def array_step(x):
    w = x * 2
    acc = np.zeros(len(x))
    i, k = 0, 0
    while i < len(x):  # acc += w looks like a step; acc is an array: carried
        acc += w
        i += 1
        k += 2
    return acc, i, k


@pytest.mark.parametrize("f", [greater_equal, doubled, downwards, read_after_step, two_in_the_test,
                               two_counters_meet, writes_its_argument, with_inner_ifs, array_step],
                         ids=lambda f: f.__name__)
def test_affine_tests_and_steps_are_pythons(f):
    for n in (0, 1, 2, 3, 4, 7, 150):
        check(f, np.random.default_rng(n).standard_normal(n))
    text = traced(f, np.zeros(150))
    assert text.count('"scf.for"') == 1, text


def with_break(x):
    s, start = 0.0, 0
    while start + 2 <= len(x):
        if x[start] > 1.5:
            break
        s = s + x[start]
        start += 2
    return s, start


def stepped_in_a_branch(x):
    s, i, k = 0.0, 0, 0
    while i + 1 < len(x):
        s = s + x[i]
        if i % 3 == 0:  # a second change of the counter, under an if: not a counted loop
            i += 1
        i += 1
        k += 1
    return s, i, k


def float_counter(x):
    t, k = 0.0, 0
    s = 0.0
    while t + 0.5 < 3.0:
        s = s + x[k]
        t += 0.25
        k += 1
    return s, t, k


def changing_bound(x):
    n, i, k = len(x), 0, 0
    s = 0.0
    while i + 1 < n:  # n steps by i, which changes: no trip count known in advance
        s = s + x[i]
        n = n - i
        i += 1
        k += 1
    return s, i, n, k


@pytest.mark.parametrize("f", [with_break, stepped_in_a_branch, float_counter, changing_bound],
                         ids=lambda f: f.__name__)
def test_loops_that_are_not_counted_run_as_before(f):
    for n in (12, 20, 40):
        check(f, np.random.default_rng(n).standard_normal(n))


def test_printed_text_is_pythons(capsys):
    def shout(x):
        start, k = 0, 0
        while start + 2 <= len(x):
            print("frame", k, "at", start)
            start += 2
            k += 1
        return k

    for n in (5, 140):
        x = np.zeros(n)
        shout(x)
        want = capsys.readouterr().out
        jc.jit(shout)(x)
        assert capsys.readouterr().out == want


def _loop(f) -> ast.While:
    tree = ast.parse(textwrap.dedent(inspect.getsource(f)))
    return next(n for n in ast.walk(tree) if isinstance(n, ast.While))


def test_the_analysis_takes_affine_counters_only():
    counters, in_test, compare, _, steps = analysis.affine_while(_loop(frames))
    assert (counters, in_test, compare) == (("start", "k"), (True, False), "<=")
    assert [ast.unparse(s) for s in steps] == ["hop", "1"]
    assert analysis.affine_while(_loop(two_in_the_test))[:2] == (("i", "j"), (True, True))
    for f in (stepped_in_a_branch, float_counter, changing_bound):
        found = analysis.affine_while(_loop(f))
        assert found is None or f is float_counter, f.__name__  # (a float: told at run time)

    def product(x):
        i, j = 1, 1
        while i * j < len(x):  # not affine
            i += 1
            j += 1
        return i

    def test_reads_data(x):
        i = 0
        while i + x[0] < 10:  # (x[0] is invariant: affine, its value decides at run time)
            i += 1
        return i

    assert analysis.affine_while(_loop(product)) is None
    assert analysis.affine_while(_loop(test_reads_data))[0] == ("i",)


def gain_trace(x):
    g = 0.0
    y = np.zeros_like(x)
    gains = []
    for n in range(len(x)):
        g = 0.5 * g + x[n]
        y[n] = x[n] * g
        gains.append(g)
    return y, np.array(gains)


def gains_and_rows(x):  # appends and writes a row of a 2-d array, an argument written too
    out = np.zeros((len(x), 2))
    peaks = []
    for n in range(len(x)):
        out[n, 0] = x[n] * 2
        out[n] = out[n] + 1
        x[n] = -x[n]
        peaks.append(out[n, 0])
    return out, np.array(peaks)


@pytest.mark.parametrize("f", [gain_trace, gains_and_rows], ids=lambda f: f.__name__)
def test_a_loop_appending_next_to_an_in_place_write_is_a_loop(f):
    for n in (0, 1, 3, 70, 300):
        check(f, np.random.default_rng(n).standard_normal(n))
    text = traced(f, np.zeros(300))
    # (a body's multiplies once, not per step; the list's rows are slices of the carried rows)
    assert text.count('"scf.for"') == 1 and text.count('"array.mul"') < 10, text[:3000]


def test_the_compressor_of_the_report_is_a_loop_and_pythons():
    x = np.random.default_rng(1).standard_normal(1024)
    text = traced(compressor, x, -12.0, 4.0)
    assert text.count('"scf.for"') == 1 and text.count('"array.mul"') < 20, text[:3000]
    got, want = jc.jit(compressor)(x, -12.0, 4.0), compressor(x, -12.0, 4.0)
    for g, w in zip(got, want):  # (log10 and ** are jitcore's own: within a few ulps)
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=0)
        assert type(g) is type(w) and g.dtype == w.dtype


def welch(x, nperseg):  # h1 S2's welch: a while over frames (84 s to compile at 92 frames)
    w = np.hanning(nperseg)
    hop = nperseg // 2
    acc = np.zeros(nperseg // 2 + 1)
    count = 0
    start = 0
    while start + nperseg <= len(x):
        seg = x[start:start + nperseg]
        seg = seg - seg.mean()
        acc += np.abs(np.fft.rfft(seg * w)) ** 2
        count += 1
        start += hop
    psd = acc / count
    psd[1:-1] *= 2
    return psd, count, start


@pytest.mark.parametrize("n", [1024, 4096])
def test_frames_of_an_fft_are_a_loop(n):
    x = np.random.default_rng(n).standard_normal(n)
    for f, args, static in ((spectrum_sum, (x,), ()), (welch, (x, 256), (1,))):
        assert traced(f, *args, static=static).count('"scf.for"') == 1, f.__name__
        got, want = jc.jit(f, static_argnums=static)(*args), f(*args)
        for g, w in zip(*(v if isinstance(v, tuple) else (v,) for v in (got, want))):
            np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12 * np.max(np.abs(w)))
            assert type(g) is type(w)
