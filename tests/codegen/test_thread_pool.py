"""The CPU runtime's persistent thread pool (codegen/cpu/thread_pool.py): launches reuse parked
workers and give the same bits every time; Python threads launching at once, a launch from
inside a launch, a forked child and a thread that cannot be started all finish, with the right
results.

Some tests call ``run_chunks`` itself through ctypes with a Python worker (ctypes releases the
GIL for the call and takes it in the callback), so they can see which threads run a launch: a
worker that waits at a barrier of ``k`` parties proves ``k`` threads ran it at once. Every test
that could hang on a bug runs under a deadline and fails instead.
"""

from __future__ import annotations

import ctypes
import errno
import os
import re
import signal
import threading
import time
import warnings

import llvmlite.binding as llvm
import numpy as np
import pytest

import jitcore as jc
import jitcore.numpy as jnp
from jitcore import config
from jitcore.codegen.cpu import runtime, target, thread_pool

DEADLINE_S = 60
WORKER = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p)
RUN_CHUNKS = ctypes.CFUNCTYPE(None, WORKER, ctypes.c_void_p, ctypes.c_int64)
rng = np.random.default_rng(8)


@pytest.fixture(autouse=True)
def split_every_kernel(monkeypatch):
    monkeypatch.setattr(runtime, "MIN_SPLIT_WORK", 0)


def _tanh(x):
    return jnp.tanh(2 * x + 1)


def _run(f, args, threads, chunk_size=7):
    with config.using(num_threads=threads, parallel_threshold=0, chunk_size=chunk_size):
        return np.asarray(f(*args))


def _run_chunks():
    """``run_chunks`` callable from Python, loaded by a first split launch if need be."""
    if runtime.run_chunks_address() is None:
        _run(jc.jit(_tanh), [np.ones(64, np.float32)], 2)
    return RUN_CHUNKS(runtime.run_chunks_address())


def _within(seconds, body):
    """``body()``'s result, or a failure if it has not returned after ``seconds`` (it is left
    running on a daemon thread: a hang fails the test instead of the suite)."""
    result, error = [], []

    def run():
        try:
            result.append(body())
        except BaseException as e:  # noqa: BLE001 - re-raised on the test's thread
            error.append(e)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"still running after {seconds} s: a deadlock"
    if error:
        raise error[0]
    return result[0]


def _threads_running_at_once(run_chunks, threads):
    """Launch a worker that waits at a barrier of ``threads`` parties on ``threads`` threads:
    the native thread ids that ran it, and whether all met (False: fewer ran it at once)."""
    barrier = threading.Barrier(threads, timeout=DEADLINE_S / 2)
    ran, met = [], []

    @WORKER
    def worker(context):
        ran.append(threading.get_native_id())
        try:
            barrier.wait()
            met.append(True)
        except threading.BrokenBarrierError:
            met.append(False)
        return None

    with config.using(num_threads=threads):
        run_chunks(worker, None, threads)
    return ran, bool(met) and all(met)


def test_many_launches_give_the_same_bits():
    f = jc.jit(_tanh)
    g = jc.jit(lambda x: x.sum(axis=1))
    x = rng.standard_normal(3001).astype(np.float32)
    y = rng.standard_normal((97, 61)).astype(np.float32)
    want_f, want_g = _run(f, [x], 1), _run(g, [y], 1)
    np.testing.assert_allclose(want_f, np.tanh(2 * x + 1), rtol=1e-6, atol=1e-6)
    for k in range(150):
        threads = (2, 3, 4)[k % 3]
        np.testing.assert_array_equal(_run(f, [x], threads), want_f, err_msg=f"launch {k}")
        np.testing.assert_array_equal(_run(g, [y], threads, chunk_size=61), want_g, err_msg=f"launch {k}")


def test_a_launch_runs_on_as_many_threads_as_asked_and_the_pool_grows():
    run_chunks = _run_chunks()
    for threads in (2, 4, 3, 2):
        ran, met = _within(DEADLINE_S, lambda k=threads: _threads_running_at_once(run_chunks, k))
        assert met and len(set(ran)) == threads, (threads, ran)
    # One thread wanted: the caller's own, no pool.
    ran = []
    with config.using(num_threads=1):
        run_chunks(WORKER(lambda context: ran.append(threading.get_native_id())), None, 8)
    assert ran == [threading.get_native_id()]


def test_changing_the_thread_count_between_calls():
    f = jc.jit(lambda x: jnp.exp(x) * 3 - x)
    x = rng.standard_normal((41, 53))
    want = _run(f, [x], 1)
    for threads in (3, 1, 5, 2, 4, 1, 2):
        np.testing.assert_array_equal(_run(f, [x], threads, chunk_size=50), want, err_msg=f"{threads}")
    assert f.cache_info().compiles == 1


def test_python_threads_launching_different_functions_at_once():
    # While one launch has the pool, another runs alone on its own thread: each launch's
    # context stays its own (a mix would put one function's values in another's result).
    cases = [(jc.jit(_tanh), rng.standard_normal(2000).astype(np.float32)),
             (jc.jit(lambda x: jnp.exp(x).sum(axis=1)), rng.standard_normal((120, 40))),
             (jc.jit(lambda x: x.sum(axis=0)), rng.standard_normal((90, 130)).astype(np.float32)),
             (jc.jit(lambda x: (x * x).sum()), rng.standard_normal(20000))]
    wants = [_run(f, [x], 1) for f, x in cases]

    def calls(case):
        f, x = case
        with config.using(num_threads=3, parallel_threshold=0, chunk_size=64):
            return [np.asarray(f(x)) for _ in range(25)]

    def all_at_once():
        # daemon threads, not an executor's: a deadlocked launch must not hold pytest's exit
        # (concurrent.futures joins its threads at exit), so that the deadline's failure ends
        results, errors = [None] * len(cases), []

        def one(k):
            try:
                results[k] = calls(cases[k])
            except BaseException as e:  # noqa: BLE001 - re-raised on the calling thread
                errors.append(e)

        threads = [threading.Thread(target=one, args=(k,), daemon=True) for k in range(len(cases))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        if errors:
            raise errors[0]
        return results

    for results, want in zip(_within(DEADLINE_S, all_at_once), wants):
        for result in results:
            np.testing.assert_array_equal(result, want)


def test_a_launch_from_inside_a_launch_runs_alone():
    run_chunks = _run_chunks()
    inner_ran, outer_ran = [], []

    @WORKER
    def inner(context):
        inner_ran.append(threading.get_native_id())
        return None

    @WORKER
    def outer(context):
        me = threading.get_native_id()
        outer_ran.append(me)
        before = inner_ran.count(me)
        run_chunks(inner, None, 4)  # the pool is busy with this launch: runs here, alone
        assert inner_ran.count(me) == before + 1
        time.sleep(0.01)  # keep the launch going while the helpers start theirs
        return None

    def launch():
        with config.using(num_threads=3):
            run_chunks(outer, None, 3)

    _within(DEADLINE_S, launch)
    assert sorted(inner_ran) == sorted(outer_ran) and outer_ran


def test_an_idle_pool_uses_no_cpu():
    # Workers spin for thread_pool.SPIN_NS after a launch, then block.
    f = jc.jit(_tanh)
    x = np.ones(5000, np.float32)
    _run(f, [x], 4)
    time.sleep(0.05)
    before = time.process_time()
    time.sleep(0.5)
    assert time.process_time() - before < 0.1


def _in_child(body) -> int:
    """Fork; run ``body()`` in the child, which exits 0 if it returns True; the child's exit
    status, or a failure if it has not exited within the deadline (then it is killed)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # Python 3.12: fork with threads
        pid = os.fork()
    if pid == 0:
        code = 1
        try:
            code = 0 if body() else 2
        except BaseException:  # noqa: BLE001 - the child must never return into pytest
            import traceback
            traceback.print_exc()
        finally:
            os._exit(code)
    deadline = time.monotonic() + DEADLINE_S
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        time.sleep(0.01)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    pytest.fail("the forked child hung")


needs_fork = pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork()")


@needs_fork
def test_a_forked_child_starts_its_own_workers():
    f = jc.jit(_tanh)
    x = rng.standard_normal(4000).astype(np.float32)
    want = _run(f, [x], 1)
    run_chunks = _run_chunks()
    assert _threads_running_at_once(run_chunks, 2)[1]  # the parent's pool has a worker

    def child():
        same = np.array_equal(_run(f, [x], 3), want)
        ran, met = _threads_running_at_once(run_chunks, 3)
        return same and met and len(set(ran)) == 3

    assert _in_child(child) == 0


@needs_fork
def test_a_child_forked_during_a_launch_takes_the_pool_over():
    # The child is forked by the launching thread while the launch holds the pool: the hold
    # belongs to the parent's launch, not to anything in the child, which must not wait on it.
    f = jc.jit(_tanh)
    x = rng.standard_normal(4000).astype(np.float32)
    want = _run(f, [x], 1)
    run_chunks = _run_chunks()
    caller, statuses = [], []

    @WORKER
    def fork_from_the_caller(context):
        if threading.get_native_id() in caller and not statuses:
            statuses.append(_in_child(lambda: np.array_equal(_run(f, [x], 2), want)
                                      and _threads_running_at_once(run_chunks, 2)[1]))
        return None

    def launch():
        caller.append(threading.get_native_id())
        with config.using(num_threads=2):
            run_chunks(fork_from_the_caller, None, 2)

    _within(DEADLINE_S, launch)
    assert statuses == [0]


@needs_fork
def test_threads_that_cannot_start_leave_the_caller_all_chunks():
    # In a child, a second pool whose pthread_create always fails (EAGAIN): every launch runs
    # on the caller alone, which takes every chunk.
    def child():
        attempts = []

        @ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)
        def failing_create(handle, attributes, start, argument):
            attempts.append(1)
            return errno.EAGAIN

        llvm.add_symbol("pthread_create", ctypes.cast(failing_create, ctypes.c_void_p).value)
        code = target.compile_ir(str(runtime.run_chunks_module()))[1]
        _, addresses = target.load_object_owned(code, [runtime.RUN_CHUNKS_SYMBOL])
        run_chunks = RUN_CHUNKS(addresses[runtime.RUN_CHUNKS_SYMBOL])
        chunks, ran = list(range(9)), []

        @WORKER
        def worker(context):
            while chunks:
                chunks.pop()
                ran.append(threading.get_native_id())
            return None

        with config.using(num_threads=4):
            run_chunks(worker, None, len(chunks))
            run_chunks(worker, None, 1)
        return attempts and not chunks and set(ran) == {threading.get_native_id()} and len(ran) == 9

    assert _in_child(child) == 0


@needs_fork
def test_workers_get_a_stack_of_our_own_size():
    # The C libraries' defaults differ (macOS 512 KiB, musl 128 KiB) and column reductions keep
    # their scratch on the stack: pthread_create gets attributes asking for WORKER_STACK_BYTES.
    def child():
        libc = ctypes.CDLL(None)
        libc.pthread_attr_getstacksize.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_size_t)]
        sizes = []

        @ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)
        def recording_create(handle, attributes, start, argument):
            size = ctypes.c_size_t(0)
            if attributes and libc.pthread_attr_getstacksize(attributes, ctypes.byref(size)) == 0:
                sizes.append(size.value)
            return errno.EAGAIN  # no worker: the caller runs every chunk

        llvm.add_symbol("pthread_create", ctypes.cast(recording_create, ctypes.c_void_p).value)
        code = target.compile_ir(str(runtime.run_chunks_module()))[1]
        _, addresses = target.load_object_owned(code, [runtime.RUN_CHUNKS_SYMBOL])
        run_chunks = RUN_CHUNKS(addresses[runtime.RUN_CHUNKS_SYMBOL])

        @WORKER
        def worker(context):
            return None

        with config.using(num_threads=3):
            run_chunks(worker, None, 4)
        return bool(sizes) and set(sizes) == {thread_pool.WORKER_STACK_BYTES}

    assert _in_child(child) == 0


def _several_launches(x, y):
    a = jnp.tanh(x) + y.sum(axis=1)[:, None]
    return a, (a.T * 2).sum(axis=1), jnp.cumsum(x, axis=0) * 3


def test_split_launches_call_the_process_runtime_and_each_runs_its_own_kernel():
    """A module's split launches call the process's launcher of the kernel's arity
    (``runtime.LAUNCHER_SYMBOL``) with the kernel: the module defines no chunk worker, launch
    or hot window's code, and every launch still runs its own kernel on threads."""
    x = rng.standard_normal((37, 41)).astype(np.float32)
    y = rng.standard_normal((37, 5)).astype(np.float32)
    f = jc.jit(_several_launches)
    text = f.lower(x, y).as_text("llvm")
    launchers = re.findall(
        r'call void @"jitcore_cpu_run_chunks_of_\d+"\(void \([^)]*\)\* '
        r'(?:bitcast \(void \([^)]*\)\* )?@"(\w+)"', text)
    assert len(set(launchers)) >= 2, launchers  # two kernels at least, each passed its own
    defined = re.findall(r'^define [^@]*@"([^"]+)"', text, re.M)
    assert all(name.startswith("jit_") for name in defined), defined
    want = [np.asarray(r) for r in _run_many(f, [x, y], 1)]
    a = np.tanh(x) + y.sum(axis=1)[:, None]
    for got, oracle in zip(want, [a, (a.T * 2).sum(axis=1), np.cumsum(x, axis=0) * 3]):
        np.testing.assert_allclose(got, oracle, rtol=1e-5, atol=1e-4)
    for threads in (2, 3):
        for got, one in zip(_run_many(f, [x, y], threads, chunk_size=5), want):
            np.testing.assert_array_equal(np.asarray(got), one)


def _run_many(f, args, threads, chunk_size=7):
    with config.using(num_threads=threads, parallel_threshold=0, chunk_size=chunk_size):
        return f(*args)


def _five_terms(a, b, c, d, e):
    return a * b + c * d - e


def test_a_launcher_passes_arguments_beyond_the_registers_where_the_kernel_reads_them(monkeypatch):
    """The process's launcher of a kernel's arity (``runtime._emit_launcher``) takes and passes
    every argument as an i64: a kernel of five strided operands (a stride each besides the
    pointers) takes more than the registers hold, and reads each where the C convention puts
    it, in chunks on threads and in the launcher's own whole call (a launch in the hot window
    that finds the pool cold)."""
    from jitcore.codegen import host

    monkeypatch.setattr(host, "SIZE_GENERIC", False)  # fixed sizes: the weighed work a constant
    base = rng.standard_normal((5, 40, 66))
    args = [base[k, :, ::2] for k in range(5)]
    f = jc.jit(_five_terms)
    text = f.lower(*args).as_text("llvm")
    (arity, weighed), = re.findall(rf'call void @"{runtime.RUN_CHUNKS_SYMBOL}_of_(\d+)"\(.*, i64 (\d+), '
                                   r'i64 \d+, i64 \d+, i64 \d+\)\n', text)
    assert int(arity) > 8
    want = args[0] * args[1] + args[2] * args[3] - args[4]
    for threads in (1, 2, 3):
        np.testing.assert_array_equal(_run(f, args, threads, chunk_size=64), want)
    time.sleep(0.01)  # the workers parked: the window's first launches find the pool cold
    with config.using(num_threads=2, parallel_threshold=2 * int(weighed)):  # in the window
        for _ in range(3):
            np.testing.assert_array_equal(np.asarray(f(*args)), want)
