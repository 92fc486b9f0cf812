"""The persistent thread pool that runs a split launch's chunks, emitted as LLVM IR.

``emit_run_chunks`` defines ``void run_chunks(worker, ptr context, i64 chunks)`` in a module
compiled once per process (``runtime.load_run_chunks``). Its state is the module's own globals,
so the pool lives as long as the process's shared engine, that is for good.

- **Workers** are started the first time a launch wants them (``threads - 1`` of them, grown
  when ``num_threads`` rises; never shrunk: the ones a launch does not want stay parked) and
  detached. Between launches a worker spins on the launch counter for ``SPIN_ROUNDS`` pauses
  (about 7 us, enough for the next launch of the same call), then blocks on a condition
  variable, so an idle pool uses no CPU. The caller waits for its helpers the same way: spins,
  then blocks.
- **A launch** (the pool's ``busy`` word taken, below) publishes the worker and its context,
  hands out ``helpers`` tickets, bumps the launch counter and wakes the blocked workers (only if
  some are blocked: a counter of sleepers, checked after the bump, with sequentially
  consistent order on both sides so that a worker about to block sees the bump or is seen).
  A worker that takes a ticket runs ``worker(context)``, which takes chunks from the context's
  atomic counter as before, and counts itself finished. The caller runs ``worker(context)``
  too, then takes back the tickets no worker took (a late worker then finds none, and never
  touches a context that is gone) and waits until every worker that took one has finished.
  Which thread runs a chunk never changes what the chunk computes, so results are the same bits
  on any thread count.
- **One launch at a time**: ``busy`` holds the process id of the launching thread's process
  (0: free), taken by a compare-and-swap. A launch that finds it held by its own process, a
  second Python thread calling at once or a kernel launching from inside a worker, runs all its
  chunks alone on its own thread: never a wait on the pool, so never a deadlock, and never two
  launches' contexts mixed.
- **fork()**: a child has none of its parent's threads, and may have copied the pool's mutex
  held. A launch compares ``getpid()`` with the process that made the pool, and on a mismatch
  starts afresh: mutex and condition variables initialised again, no workers. A ``busy`` word
  holding another process's id (a fork while another thread was launching) is stale and taken
  over.
- **pthread_create failing**: the pool keeps the workers it has; with none the caller runs
  every chunk itself, as without threads.

``pthread_mutex_t`` and ``pthread_cond_t`` differ in size between C libraries (glibc: 40 and
48 bytes; macOS: 64 and 48), so each gets ``SYNC_BYTES`` of storage aligned to a cache line,
initialised by ``pthread_mutex_init`` / ``pthread_cond_init``. ``pthread_t`` is passed as an
i64 (an integer or a pointer: one register either way).
"""

from __future__ import annotations

from collections.abc import Callable

import llvmlite.binding as llvm
from llvmlite import ir as ll

from jitcore.codegen.llvm_types import I64, PTR, declare

I32 = ll.IntType(32)
# Pauses a parked worker (or a caller waiting for its helpers) spins through before it blocks.
# A pause is 27 ns on the development machine's AMD Zen 5 (4096 of them: 110-117 us), 30-40 ns
# on Intel since Skylake. Short, because on a host with more runnable threads than cores a
# spinning thread holds a core that the thread it waits for may need: on the 2-core host at
# load 8, tanh(2x+1) on 2^19 float32 points on two threads took 0.15-0.17 ms with 256 pauses,
# 0.2-0.6 ms with 1024 and 0.7-1.0 ms with 4096 (one thread: 0.13-0.16 ms); 256 still catches
# a launch that follows within a few microseconds, as in one call's run of kernels.
SPIN_ROUNDS = 1 << 8
SYNC_BYTES = 256
ATTR_BYTES = 128  # pthread_attr_t: 56 bytes on glibc x86-64, 64 on aarch64 and macOS
WORKER_STACK_BYTES = 8 << 20
CACHE_LINE = 128  # two 64-byte lines: the adjacent-line prefetcher fetches pairs

# The type of a thread's entry, ``ptr worker(ptr context)``, which run_chunks calls too.
WORKER = ll.FunctionType(PTR, [PTR])

_WORDS = ("busy", "owner_pid", "workers", "launches", "tickets", "finished", "sleepers",
          "waiting", "helpers", "job_worker", "job_context")
_SYNC = ("mutex", "work_ready", "work_done")


class _Pool:
    """The pool's globals and the libc functions it calls, in one module."""

    def __init__(self, module: ll.Module):
        self.module = module
        self.words = {name: self._global(f"jitcore_pool_{name}", I64) for name in _WORDS}
        self.sync = {name: self._global(f"jitcore_pool_{name}", ll.ArrayType(ll.IntType(8), SYNC_BYTES))
                     for name in _SYNC}
        libc = lambda name, result, *params: declare(module, name, result, list(params))  # noqa: E731
        self.getpid = libc("getpid", I32)
        self.create = libc("pthread_create", I32, PTR, PTR, PTR, PTR)
        self.attr_init = libc("pthread_attr_init", I32, PTR)
        self.attr_stack = libc("pthread_attr_setstacksize", I32, PTR, I64)
        self.attr_destroy = libc("pthread_attr_destroy", I32, PTR)
        self.detach = libc("pthread_detach", I32, I64)
        self.mutex_init = libc("pthread_mutex_init", I32, PTR, PTR)
        self.cond_init = libc("pthread_cond_init", I32, PTR, PTR)
        self.lock = libc("pthread_mutex_lock", I32, PTR)
        self.unlock = libc("pthread_mutex_unlock", I32, PTR)
        self.wait = libc("pthread_cond_wait", I32, PTR, PTR)
        self.broadcast = libc("pthread_cond_broadcast", I32, PTR)
        self.pause = _pause_instruction(module)

    def _global(self, name: str, typ: ll.Type) -> ll.GlobalVariable:
        g = ll.GlobalVariable(self.module, typ, name)
        g.linkage = "internal"
        g.initializer = ll.Constant(typ, None)
        g.align = CACHE_LINE
        return g


def _pause_instruction(module: ll.Module) -> tuple[ll.Function, list[ll.Value]] | None:
    """The CPU's spin-wait hint (x86's ``pause``, ARM's ``yield``) as an LLVM intrinsic (inline
    assembly would need an assembly parser in the engine), or None where we know none."""
    arch = llvm.get_process_triple().split("-")[0]
    void = ll.VoidType()
    if arch in ("x86_64", "i386", "i686"):
        return declare(module, "llvm.x86.sse2.pause", void, []), []
    if arch in ("aarch64", "arm64"):
        return declare(module, "llvm.aarch64.hint", void, [I32]), [ll.Constant(I32, 1)]
    return None


class _Emitter:
    """A builder inside one function of the pool, with the few shapes the pool's code takes."""

    def __init__(self, pool: _Pool, fn: ll.Function):
        self.pool, self.fn = pool, fn
        self.b = ll.IRBuilder(fn.append_basic_block("entry"))

    def block(self, name: str) -> ll.Block:
        return self.fn.append_basic_block(name)

    def load(self, name: str, order: str = "monotonic") -> ll.Value:
        return self.b.load_atomic(self.pool.words[name], order, 8, typ=I64)

    def store(self, name: str, value: ll.Value | int, order: str = "monotonic") -> None:
        value = ll.Constant(I64, value) if isinstance(value, int) else value
        self.b.store_atomic(value, self.pool.words[name], order, 8)

    def rmw(self, op: str, name: str, value: int, order: str = "seq_cst") -> ll.Value:
        return self.b.atomic_rmw(op, self.pool.words[name], ll.Constant(I64, value), order)

    def sync(self, name: str) -> ll.Value:
        return self.pool.sync[name]

    def locked(self, body: Callable[[], None]) -> None:
        self.b.call(self.pool.lock, [self.sync("mutex")])
        body()
        self.b.call(self.pool.unlock, [self.sync("mutex")])

    def wait_until(self, ready: Callable[[], ll.Value], announce: str, condition: str,
                   rounds: ll.Value | None = None) -> None:
        """Spin up to ``rounds`` pauses (``SPIN_ROUNDS``) until ``ready()`` (an i1 built at each
        look) holds; then block on ``condition`` with ``announce`` counted up while blocked, so
        the thread that makes ``ready()`` hold knows to wake it. Falls through once it holds."""
        b = self.b
        rounds = ll.Constant(I64, SPIN_ROUNDS) if rounds is None else rounds
        before = b.block
        spin, not_yet, pause, lock, check, sleep, awake, done = (self.block(n) for n in (
            "spin", "not_yet", "pause", "lock", "check", "sleep", "awake", "ready"))
        b.branch(spin)
        b.position_at_end(spin)
        round_ = b.phi(I64)
        round_.add_incoming(ll.Constant(I64, 0), before)
        b.cbranch(ready(), done, not_yet)
        b.position_at_end(not_yet)
        b.cbranch(b.icmp_signed("<", round_, rounds), pause, lock)
        b.position_at_end(pause)
        if self.pool.pause is not None:
            b.call(*self.pool.pause)
        round_.add_incoming(b.add(round_, ll.Constant(I64, 1)), pause)
        b.branch(spin)

        b.position_at_end(lock)
        b.call(self.pool.lock, [self.sync("mutex")])
        self.rmw("add", announce, 1)
        b.branch(check)
        b.position_at_end(check)
        b.cbranch(ready(), awake, sleep)
        b.position_at_end(sleep)
        b.call(self.pool.wait, [self.sync(condition), self.sync("mutex")])
        b.branch(check)
        b.position_at_end(awake)
        self.rmw("sub", announce, 1)
        b.call(self.pool.unlock, [self.sync("mutex")])
        b.branch(done)
        b.position_at_end(done)

    def wake(self, announce: str, condition: str) -> None:
        """Wake every thread blocked in ``wait_until(..., announce, condition)``, if any is:
        call after making its ``ready()`` hold (with a sequentially consistent write)."""
        b = self.b
        some = b.icmp_signed("!=", self.load(announce, "seq_cst"), ll.Constant(I64, 0))
        with b.if_then(some, likely=False):
            self.locked(lambda: b.call(self.pool.broadcast, [self.sync(condition)]))


def emit_run_chunks(module: ll.Module, symbol: str,
                    threads_wanted: Callable[[ll.IRBuilder], ll.Value]) -> None:
    """Define ``void <symbol>(worker, ptr context, i64 chunks)`` in ``module``: run
    ``worker(context)`` on the calling thread and on up to ``threads_wanted - 1`` of the pool's
    workers, returning when all have returned. ``threads_wanted(b)`` builds the thread count at
    ``b`` (at least 1, at most ``chunks``)."""
    pool = _Pool(module)
    pool_worker = _emit_pool_worker(pool)
    fn = ll.Function(module, ll.FunctionType(ll.VoidType(), [WORKER.as_pointer(), PTR, I64]), symbol)
    worker, context, _ = fn.args
    e = _Emitter(pool, fn)
    b = e.b
    zero, one = ll.Constant(I64, 0), ll.Constant(I64, 1)
    alone, take, stale, steal, owned, done = (e.block(n) for n in (
        "alone", "take", "stale", "steal", "owned", "done"))

    threads = threads_wanted(b)
    b.cbranch(b.icmp_signed(">", threads, one), take, alone)

    b.position_at_end(alone)  # one thread wanted, or the pool busy in this process
    b.call(worker, [context])
    b.ret_void()

    b.position_at_end(take)
    pid = b.sext(b.call(pool.getpid, []), I64)
    swap = b.cmpxchg(pool.words["busy"], zero, pid, "acquire", "monotonic")
    holder = b.extract_value(swap, 0)
    b.cbranch(b.extract_value(swap, 1), owned, stale)

    b.position_at_end(stale)  # held by a thread of this process, or of an ancestor (stale)
    b.cbranch(b.icmp_signed("==", holder, pid), alone, steal)
    b.position_at_end(steal)  # the ancestor's thread is not in this forked child
    taken = b.extract_value(b.cmpxchg(pool.words["busy"], holder, pid, "acquire", "monotonic"), 1)
    b.cbranch(taken, owned, alone)

    b.position_at_end(owned)
    with b.if_then(b.icmp_signed("!=", e.load("owner_pid"), pid), likely=False):
        _emit_fresh_pool(e, pid)
    helpers = _emit_grow(e, pool_worker, b.sub(threads, one))

    none_started = b.icmp_signed("==", helpers, zero)
    with b.if_else(none_started) as (by_itself, shared):
        with by_itself:
            b.call(worker, [context])
        with shared:
            _emit_shared_launch(e, worker, context, helpers)
    e.store("busy", 0, "release")
    b.branch(done)
    b.position_at_end(done)
    b.ret_void()


def _emit_fresh_pool(e: _Emitter, pid: ll.Value) -> None:
    """A pool with no workers, its mutex and condition variables initialised (again, in a
    forked child, where the parent's copies may have been held)."""
    null = ll.Constant(PTR, None)
    e.b.call(e.pool.mutex_init, [e.sync("mutex"), null])
    for condition in ("work_ready", "work_done"):
        e.b.call(e.pool.cond_init, [e.sync(condition), null])
    for word in ("workers", "tickets", "finished", "sleepers", "waiting"):
        e.store(word, 0)
    e.store("owner_pid", pid)


def _emit_grow(e: _Emitter, pool_worker: ll.Function, wanted: ll.Value) -> ll.Value:
    """Start workers until there are ``wanted`` (or one fails to start); the helpers a launch
    gets: ``min(wanted, workers)``."""
    b = e.b
    with b.goto_entry_block():
        handle = b.alloca(I64)
        attr = b.alloca(ll.ArrayType(ll.IntType(8), ATTR_BYTES))
        attr.align = 16
    # The workers' stacks: a size of our own, as the default differs between C libraries
    # (glibc: the stack rlimit, often 8 MiB; macOS: 512 KiB; musl: 128 KiB) and a column
    # reduction's scratch lives on the stack. Without attributes, the default.
    with b.goto_entry_block():
        made_slot = b.alloca(ll.IntType(1))
    b.store(ll.Constant(ll.IntType(1), 0), made_slot)
    workers = e.load("workers")
    with b.if_then(b.icmp_signed("<", workers, wanted), likely=False):  # only when growing
        ok = b.icmp_signed("==", b.call(e.pool.attr_init, [attr]), ll.Constant(I32, 0))
        b.store(ok, made_slot)
        with b.if_then(ok):
            b.call(e.pool.attr_stack, [attr, ll.Constant(I64, WORKER_STACK_BYTES)])
    made = b.load(made_slot)
    attributes = b.select(made, b.bitcast(attr, PTR), ll.Constant(PTR, None))
    before = b.block
    check, start, started, done = (e.block(n) for n in ("grow", "start", "started", "grown"))
    b.branch(check)
    b.position_at_end(check)
    have = b.phi(I64)
    have.add_incoming(workers, before)
    b.cbranch(b.icmp_signed("<", have, wanted), start, done)
    b.position_at_end(start)
    failed = b.call(e.pool.create, [handle, attributes, pool_worker, b.inttoptr(have, PTR)])
    b.cbranch(b.icmp_signed("==", failed, ll.Constant(I32, 0)), started, done)
    b.position_at_end(started)
    b.call(e.pool.detach, [b.load(handle, typ=I64)])
    more = b.add(have, ll.Constant(I64, 1))
    e.store("workers", more)
    have.add_incoming(more, started)
    b.branch(check)
    b.position_at_end(done)
    workers = b.phi(I64)
    workers.add_incoming(have, check)
    workers.add_incoming(have, start)
    with b.if_then(made):
        b.call(e.pool.attr_destroy, [attr])
    return b.select(b.icmp_signed("<", workers, wanted), workers, wanted)


def _emit_shared_launch(e: _Emitter, worker: ll.Value, context: ll.Value, helpers: ll.Value) -> None:
    """Publish the launch to ``helpers`` workers, run it here too, take back the tickets no
    worker took, and wait for the workers that took one."""
    b = e.b
    e.store("job_worker", b.ptrtoint(worker, I64))
    e.store("job_context", b.ptrtoint(context, I64))
    e.store("helpers", helpers)
    e.store("finished", 0)
    e.store("tickets", helpers, "release")
    e.rmw("add", "launches", 1)
    e.wake("sleepers", "work_ready")
    b.call(worker, [context])
    left = b.atomic_rmw("xchg", e.pool.words["tickets"], ll.Constant(I64, 0), "acq_rel")
    left = b.select(b.icmp_signed("<", left, ll.Constant(I64, 0)), ll.Constant(I64, 0), left)
    joined = b.sub(helpers, left)
    e.wait_until(lambda: b.icmp_signed("==", e.load("finished", "seq_cst"), joined), "waiting", "work_done")


def _emit_pool_worker(pool: _Pool) -> ll.Function:
    """``ptr pool_worker(ptr index)``: a worker's life. Park until the launch counter moves;
    if this worker is one the launch wants and a ticket is left, run the launch's worker on its
    context and count itself finished; park again."""
    fn = ll.Function(pool.module, WORKER, "jitcore_pool_worker")
    fn.linkage = "internal"
    e = _Emitter(pool, fn)
    b = e.b
    index = b.ptrtoint(fn.args[0], I64)
    entry = b.block
    park, launched, wanted, run = (e.block(n) for n in ("park", "launched", "wanted", "run"))
    b.branch(park)

    b.position_at_end(park)
    seen = b.phi(I64)
    seen.add_incoming(ll.Constant(I64, 0), entry)
    rounds = b.phi(I64)  # a worker the last launch did not want blocks at once
    rounds.add_incoming(ll.Constant(I64, SPIN_ROUNDS), entry)
    e.wait_until(lambda: b.icmp_signed("!=", e.load("launches", "seq_cst"), seen), "sleepers", "work_ready",
                 rounds)
    now = e.load("launches", "acquire")
    b.branch(launched)

    b.position_at_end(launched)
    b.cbranch(b.icmp_signed("<", index, e.load("helpers")), wanted, park)
    seen.add_incoming(now, launched)
    rounds.add_incoming(ll.Constant(I64, 0), launched)

    b.position_at_end(wanted)
    before = b.atomic_rmw("sub", pool.words["tickets"], ll.Constant(I64, 1), "acq_rel")
    b.cbranch(b.icmp_signed(">", before, ll.Constant(I64, 0)), run, park)
    seen.add_incoming(now, wanted)
    rounds.add_incoming(ll.Constant(I64, SPIN_ROUNDS), wanted)

    b.position_at_end(run)
    job = b.inttoptr(e.load("job_worker"), WORKER.as_pointer())
    context = b.inttoptr(e.load("job_context"), PTR)
    b.call(job, [context])
    e.rmw("add", "finished", 1)
    e.wake("waiting", "work_done")
    seen.add_incoming(now, b.block)
    rounds.add_incoming(ll.Constant(I64, SPIN_ROUNDS), b.block)
    b.branch(park)
    return fn
