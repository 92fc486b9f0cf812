"""jitcore.profile(): per-call and per-kernel times, bytes, flops, the table and the Chrome trace."""

import json
import threading

import numpy as np
import pytest

import jitcore as jc
from jitcore import profiler
from jitcore.api import JitFunction


def _sum_then_subtract(x):
    s = x.sum()
    return x - s


def test_two_kernels_bytes_and_results():
    f = jc.jit(_sum_then_subtract)
    x = np.arange(1000, dtype=np.float64)
    with jc.profile() as p:
        f(x)  # compiles the profiled twin
        out = f(x)
    np.testing.assert_array_equal(out, x - x.sum())
    first, second = p.calls
    assert first.compiled and not second.compiled
    assert second.function == "_sum_then_subtract"
    kernels = second.kernels
    assert len(kernels) == 2, kernels
    total, difference = kernels
    # the sum reads x and writes one float; the difference reads x and the sum, writes x's size
    assert (total.bytes_read, total.bytes_written) == (x.nbytes, 8)
    assert (difference.bytes_read, difference.bytes_written) == (x.nbytes + 8, x.nbytes)
    assert total.flops == x.size and difference.flops == x.size
    assert all(k.runs == 1 and k.duration_ns >= 0 for k in kernels)
    assert second.start_ns <= total.start_ns <= difference.start_ns
    assert difference.start_ns + difference.duration_ns <= second.end_ns


def test_table_rows_and_bandwidth():
    f = jc.jit(_sum_then_subtract)
    x = np.ones(4096)
    with jc.profile() as p:
        for _ in range(3):
            f(x)
    rows = p.rows()
    whats = sorted(r["what"] for r in rows)
    assert whats == ["call", "call, compiling", "k0", "k1"]
    kernel = next(r for r in rows if r["what"] == "k1")
    assert kernel["count"] == 3 and kernel["bytes"] == 3 * (2 * x.nbytes + 8)
    assert [r["ns"] for r in rows] == sorted((r["ns"] for r in rows), reverse=True)
    text = p.table()
    assert "_sum_then_subtract" in text and "copy bandwidth" in text
    assert profiler.copy_bandwidth() > 0


def test_chrome_trace_nests_kernels_in_calls(tmp_path):
    f = jc.jit(_sum_then_subtract)
    with jc.profile() as p:
        f(np.ones(100))
        f(np.ones(100))
    path = tmp_path / "trace.json"
    p.export_chrome_trace(path)
    events = json.loads(path.read_text())["traceEvents"]
    calls = [e for e in events if e["cat"] == "jit call"]
    kernels = [e for e in events if e["cat"] == "kernel"]
    assert len(calls) == 2 and len(kernels) == 4
    assert all(e["ph"] == "X" and {"ts", "dur", "pid", "tid", "name"} <= set(e) for e in events)
    last = calls[-1]
    for k in kernels[2:]:
        assert k["tid"] == last["tid"]
        assert last["ts"] <= k["ts"] and k["ts"] + k["dur"] <= last["ts"] + last["dur"] + 1e-3


def test_loop_counts_runs():
    @jc.jit
    def f(x):
        return jc.fori_loop(0, 5, lambda i, c: c * 2.0 + x.sum(), x)

    x = np.ones(64)
    with jc.profile() as p:
        out = f(x)
    expected = x
    for _ in range(5):
        expected = expected * 2.0 + x.sum()
    np.testing.assert_array_equal(out, expected)
    assert max(k.runs for k in p.calls[0].kernels) == 5


def test_off_leaves_the_call_path_untouched():
    original = JitFunction.__call__
    f = jc.jit(_sum_then_subtract)
    f(np.ones(8))
    assert f not in profiler._twins  # no profiled twin is made outside a profile
    with jc.profile():
        assert JitFunction.__call__ is not original
        f(np.ones(8))
    assert JitFunction.__call__ is original
    assert f.cache_info().compiles == 1  # the twin's compile is not the function's


def test_nested_profiles_and_threads():
    f = jc.jit(lambda x: x * 2.0 + 1.0)
    x = np.ones(16, np.float32)
    with jc.profile() as outer:
        f(x)
        with jc.profile() as inner:
            threads = [threading.Thread(target=f, args=(x,)) for _ in range(3)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
        f(x)
    assert len(inner.calls) == 3 and len(outer.calls) == 5
    assert {c.thread for c in inner.calls} == {t.ident for t in threads}
    assert all(k.flops == 2 * x.size for c in outer.calls for k in c.kernels)


def test_an_error_in_a_profiled_call_is_raised_and_recorded():
    @jc.jit
    def f(x, i):
        return x[i]

    outside = JitFunction.__call__
    with jc.profile() as p:
        with pytest.raises(IndexError):
            f(np.ones(4), 7)
    assert len(p.calls) == 1
    assert JitFunction.__call__ is outside
