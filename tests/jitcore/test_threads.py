"""One jitted function called from many threads at once: each signature compiles once, results
are right, the counters are exact, and a failing compile reaches every caller without a hang.

Threads start together at a barrier. The assertions hold for every interleaving: where a test
needs threads to be waiting for a compile, the compiling thread waits until their stacks show
it (``wait_until_waiting``) rather than sleeping for a while.
"""

from __future__ import annotations

import collections
import ctypes
import sys
import threading
import time

import numpy as np
import pytest

import jitcore as jc
import jitcore.numpy as jnp
from jitcore import dispatch
from jitcore.codegen import host

THREADS = 8
JOIN_TIMEOUT = 60.0  # seconds: a hang fails the test instead of the suite


def run_threads(target, n: int = THREADS) -> list:
    """Run ``target(i)`` in ``n`` threads started together; return each one's result or the
    exception it raised."""
    barrier = threading.Barrier(n)
    results: list = [None] * n

    def body(i):
        try:
            barrier.wait(timeout=JOIN_TIMEOUT)
            results[i] = target(i)
        except BaseException as e:  # noqa: BLE001  (a test's BaseException is a result too)
            results[i] = e

    threads = [threading.Thread(target=body, args=(i,), daemon=True) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(JOIN_TIMEOUT)
    assert not any(t.is_alive() for t in threads), "threads hung"
    return results


def waiting_for_a_compile() -> int:
    """How many threads are blocked waiting for another thread's compile (their stacks pass
    through JitFunction._compile_once and end in a threading wait)."""
    count = 0
    for frame in sys._current_frames().values():
        codes = []
        while frame is not None:
            codes.append(frame.f_code)
            frame = frame.f_back
        names = [c.co_name for c in codes]
        if "_compile_once" in names and codes[0].co_filename == threading.__file__:
            count += 1
    return count


def wait_until_waiting(n: int) -> None:
    deadline = time.monotonic() + JOIN_TIMEOUT
    while waiting_for_a_compile() < n:
        assert time.monotonic() < deadline, f"{waiting_for_a_compile()} of {n} threads wait"
        time.sleep(0.001)


def data(i: int, shape=(8,), dtype=np.float32):
    """Small integers: every result below is exact, whatever the vector width or FMA use."""
    return (np.arange(np.prod(shape), dtype=dtype).reshape(shape) + i) % 17


# -- one new signature ------------------------------------------------------------------------

def test_one_new_signature_from_many_threads_compiles_once():
    f = jc.jit(lambda x, y: x * 2 + y)
    results = run_threads(lambda i: (f(data(i), data(i + 1)), data(i) * 2 + data(i + 1)))
    for got, want in results:
        np.testing.assert_array_equal(got, want)
    # One thread traced and compiled; every other call ran its code (waiting for it or not).
    assert f.cache_info() == (THREADS - 1, 1, 1, 1)


def test_threads_that_miss_wait_for_the_one_compile():
    entered = collections.deque()  # (a list changed while tracing is refused)

    @jc.jit
    def f(x):
        entered.append(threading.get_ident())
        wait_until_waiting(THREADS - 1)  # the other threads are blocked on this compile
        return x - 1

    results = run_threads(lambda i: f(data(i)))
    for i, got in enumerate(results):
        np.testing.assert_array_equal(got, data(i) - 1)
    assert len(entered) == 1
    assert f.cache_info() == (THREADS - 1, 1, 1, 1)


# -- many signatures ---------------------------------------------------------------------------

SIGNATURES = [((n,), np.float32) for n in (1, 2, 3, 7, 8, 9, 16, 33)] + [
    ((2, 3), np.float64), ((3, 2), np.float64), ((4,), np.int32), ((4,), np.int64)]


def test_many_signatures_interleaved_compile_once_each(monkeypatch):
    # Fixed-size code: every signature compiles (sizes share code otherwise).
    monkeypatch.setattr(host, "SIZE_GENERIC", False)
    f = jc.jit(lambda x, y: x * 3 - y)
    rounds = 2

    def calls(i):
        order = SIGNATURES[i:] + SIGNATURES[:i]  # each thread starts on another signature
        for _ in range(rounds):
            for shape, dtype in order:
                x, y = data(i, shape, dtype), data(i + 5, shape, dtype)
                np.testing.assert_array_equal(f(x, y), x * 3 - y)

    assert run_threads(calls) == [None] * THREADS
    n = len(SIGNATURES)
    assert f.cache_info() == (THREADS * rounds * n - n, n, n, n)


def test_slow_path_signatures_from_many_threads():
    # Keyword arguments, static arguments and strided views do not take the fast path.
    @jc.jit(static_argnames=("k",))
    def f(x, *, k):
        return x[::2] * k

    def calls(i):
        for k in (1, 2, 3):
            x = data(i, (6, 4))
            for arg in (x, x.T, x[:, ::2]):
                np.testing.assert_array_equal(f(arg, k=k), arg[::2] * k)

    assert run_threads(calls) == [None] * THREADS
    # 3 values of k x 3 layouts: (6, 4) C, (4, 6) transposed, (6, 2) strided.
    assert f.cache_info() == (THREADS * 9 - 9, 9, 9, 9)


# -- cached calls ------------------------------------------------------------------------------

def test_cached_calls_from_many_threads_are_right_and_counted():
    f = jc.jit(lambda x, y: jnp.maximum(x, y) - x)
    f(data(0), data(0))
    calls = 300

    def body(i):
        for j in range(calls):
            x, y = data(i + j), data(2 * j)
            np.testing.assert_array_equal(f(x, y), np.maximum(x, y) - x)

    assert run_threads(body) == [None] * THREADS
    assert f.cache_info() == (THREADS * calls, 1, 1, 1)


# -- compiles that fail ------------------------------------------------------------------------

def test_a_compile_that_raises_reaches_every_waiting_thread():
    traces = collections.deque()  # (a list changed while tracing is put back: the trace fails)

    @jc.jit(autograph=False)
    def f(x):
        traces.append(None)
        if len(traces) == 1:
            wait_until_waiting(THREADS - 1)
        if x.sum() > 0:  # ConcretizationError
            return x
        return -x

    results = run_threads(lambda i: f(data(i)))
    assert isinstance(results[0], jc.ConcretizationError)
    assert all(r is results[0] for r in results), results
    # One trace failed, and its error went to every caller; nothing was compiled or cached.
    assert f.cache_info() == (0, 1, 1, 0)
    assert "if x.sum() > 0:" in str(results[0])
    # A later call tries again (and fails again).
    with pytest.raises(jc.ConcretizationError):
        f(data(0))
    assert f.cache_info() == (0, 2, 2, 0)


def test_failing_compiles_from_many_threads_never_hang():
    # No waiting inside the trace: threads fail one by one, or together, depending on timing.
    f = jc.jit(lambda x: x if x.sum() > 0 else -x, autograph=False)
    results = run_threads(lambda i: f(data(i)))
    assert all(isinstance(r, jc.ConcretizationError) for r in results), results
    hits, misses, traces, compiles = f.cache_info()
    assert (hits, compiles) == (0, 0)
    assert 1 <= misses == traces <= THREADS


def test_after_a_failed_compile_later_calls_compile_it():
    traced = collections.deque()  # (a list changed while tracing is refused)

    @jc.jit
    def f(x):
        traced.append(None)
        if len(traced) == 1:
            raise ValueError("first trace fails")
        return x + 1

    results = run_threads(lambda i: f(data(i)))
    errors = [r for r in results if isinstance(r, BaseException)]
    assert errors and all(isinstance(e, ValueError) for e in errors), results
    for i, r in enumerate(results):
        if not isinstance(r, BaseException):
            np.testing.assert_array_equal(r, data(i) + 1)
    # Callers that waited for the failed trace got its error; later ones compiled once.
    succeeded = THREADS - len(errors)
    assert f.cache_info() == ((succeeded - 1, 2, 2, 1) if succeeded else (0, 1, 1, 0))
    np.testing.assert_array_equal(f(data(0)), data(0) + 1)


class Interrupt(BaseException):
    """Like KeyboardInterrupt: it stops the compiling thread only."""


def test_an_interrupted_compile_is_retried_by_the_waiting_threads():
    owner = collections.deque()  # (a list changed while tracing is refused)

    @jc.jit
    def f(x):
        if not owner:
            owner.append(threading.get_ident())
            wait_until_waiting(THREADS - 1)
            raise Interrupt
        return x * 5

    results = run_threads(lambda i: f(data(i)))
    interrupted = [i for i, r in enumerate(results) if isinstance(r, Interrupt)]
    assert len(interrupted) == 1
    for i, r in enumerate(results):
        if i not in interrupted:
            np.testing.assert_array_equal(r, data(i) * 5)
    # The interrupted trace, then one waiting thread traced again for the others.
    assert f.cache_info() == (THREADS - 2, 2, 2, 1)


# -- writes in place ---------------------------------------------------------------------------

def test_in_place_writes_from_many_threads_to_separate_arrays():
    @jc.jit
    def accumulate(acc, x):
        acc += x
        acc[0] = 0
        return acc.sum()

    calls = 50

    def body(i):
        acc = np.zeros(16, np.int64)
        view_base = np.zeros((16, 2), np.float64)
        view = view_base[:, 1]  # strided: written back through the caller's view
        for j in range(calls):
            accumulate(acc, np.full(16, i + 1, np.int64))
            accumulate(view, np.full(16, j, np.float64))
        return acc, view_base

    for i, (acc, view_base) in enumerate(run_threads(body)):
        want = np.full(16, calls * (i + 1), np.int64)
        want[0] = 0
        np.testing.assert_array_equal(acc, want)
        want_view = np.full(16, calls * (calls - 1) // 2, np.float64)
        want_view[0] = 0
        np.testing.assert_array_equal(view_base[:, 1], want_view)
        np.testing.assert_array_equal(view_base[:, 0], 0)  # the other column is untouched
    assert accumulate.cache_info() == (THREADS * calls * 2 - 2, 2, 2, 2)


# -- the native call and the GIL ---------------------------------------------------------------

def test_the_native_call_releases_the_gil():
    # ctypes releases the GIL around a CFUNCTYPE call and keeps it for a PYFUNCTYPE one; the
    # compiled code touches no Python object's reference count, so it need not hold the GIL.
    f = jc.jit(lambda x: x + 1)
    f(np.ones(4))
    (executable,) = f._cache.values()
    assert isinstance(executable._fn, dispatch._ENTRY)
    assert not dispatch._ENTRY._flags_ & ctypes._FUNCFLAG_PYTHONAPI


def test_a_function_calling_itself_with_its_signature_while_tracing_does_not_deadlock():
    inner = collections.deque()  # (a list changed while tracing is refused)

    @jc.jit
    def f(x):
        if not inner:  # the outer trace: call f on a concrete array of the same signature
            inner.append(None)
            return x + f(np.full(3, 10.0))  # inlined into this trace (test_compose.py)
        return x + 1

    results = run_threads(lambda i: f(np.ones(3)), n=1)
    np.testing.assert_array_equal(results[0], np.full(3, 12.0))
    assert f.cache_info() == (0, 1, 1, 1)
