"""The persistent thread pool that runs a split launch's chunks, emitted as LLVM IR.

``emit_run_chunks`` defines ``void run_chunks(worker, ptr context, i64 chunks)`` in a module
compiled once per process (``runtime.load_run_chunks``). Its state is the module's own globals,
so the pool lives as long as the process's shared engine, that is for good.

- **Workers** are started the first time a launch wants them (``threads - 1`` of them, grown
  when ``num_threads`` rises; never shrunk: the ones a launch does not want stay parked) and
  detached. After a launch a worker spins on the launch counter for ``SPIN_NS`` (1 ms: the
  next launch of a loop of calls finds it on a core, not parked behind a futex wake that costs
  the waker 13 us on a KVM host), looking at the clock and yielding its core every
  ``PAUSES_PER_LOOK`` pauses and marking a heartbeat (``runtime.POOL_STATE``) that tells
  launches it is hot; then it blocks on a condition variable, so an idle pool uses no CPU.
  The caller waits for its helpers the same way: spins, then blocks.
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
- **Placement** (Linux): the caller keeps the workers a launch takes off its own CPU (their
  affinity: the pool's CPUs less the caller's), re-set only when the caller's CPU differs
  from the last launch's, so that a worker woken next to the caller never waits out the
  launch in its run queue (``PLACEMENT``).
- **Warming**: ``run_chunks`` with a null worker wakes the workers a launch would take, with
  no tickets, and returns at once: they spin for the next launch (``runtime._emit_launch_function``).
- **pthread_create failing**: the pool keeps the workers it has; with none the caller runs
  every chunk itself, as without threads.

``pthread_mutex_t`` and ``pthread_cond_t`` differ in size between C libraries (glibc: 40 and
48 bytes; macOS: 64 and 48), so each gets ``SYNC_BYTES`` of storage aligned to a cache line,
initialised by ``pthread_mutex_init`` / ``pthread_cond_init``. ``pthread_t`` is passed as an
i64 (an integer or a pointer: one register either way).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

import llvmlite.binding as llvm
from llvmlite import ir as ll

from jitcore.codegen.llvm_types import I64, PTR, declare
from jitcore.codegen.loops import emit_loop

I32 = ll.IntType(32)
# How long a worker stays hot after a launch, and a caller waits for its helpers, spinning
# before it blocks on a condition variable (nanoseconds of CLOCK_MONOTONIC). A blocked thread
# costs a futex wake to bring back, 8-12 us on the 2-vCPU KVM host (a halted vCPU to wake),
# and the woken worker often lands on the caller's core and preempts it there; a matrix-vector
# product of 1024^2 float32 is 60 us on one thread, so a parked pool took its second thread's
# whole gain (docs/performance.md, "threads38"). Spinning for SPIN_NS after a launch catches
# the next launch of a loop of calls in well under a microsecond; after it an idle pool uses
# no CPU. Each look at the clock also yields the core (``sched_yield``): a spinning worker
# that shares its core with the caller, or with any other runnable thread, gives it way at
# once, so a busy host loses at most a few microseconds per look to the spin (a spin of
# 4096 pauses without yields measured 5x slower on the loaded host: a caller spinning on the
# core its preempted helper needed).
SPIN_NS = 1_000_000
# Pauses between two looks at the clock (and yields): 3 us of the AMD EPYC's 24.5 ns pauses,
# 5 us of Intel's 40 ns since Skylake. The spin watches its flag at every pause.
PAUSES_PER_LOOK = 128
SYNC_BYTES = 256
ATTR_BYTES = 128  # pthread_attr_t: 56 bytes on glibc x86-64, 64 on aarch64 and macOS
WORKER_STACK_BYTES = 8 << 20
CACHE_LINE = 128  # two 64-byte lines: the adjacent-line prefetcher fetches pairs

# Linux may wake a parked worker onto the CPU of the thread that woke it while another CPU
# idles (on a KVM guest, an idle vCPU whose host thread was preempted counts as busy): the
# worker then waits in the caller's run queue until the caller's launch is over, and the
# launch runs at one thread's speed (a 512^2 product after a pause, 4-5 calls in a row; the
# worker's schedstat showing no run time in the call; docs/performance.md, "Placement").
# So on Linux the caller keeps the workers off its own CPU: each worker's affinity is the
# CPUs the pool's first caller may use less the caller's CPU at the last launch, set by the
# caller (one ``sched_setaffinity`` per worker) only when its CPU differs from the last
# launch's, a move of the caller between calls: rare.
PLACEMENT = sys.platform.startswith("linux")
MASK_WORDS = 16  # a cpu_set_t of 1024 CPUs (glibc's), as i64 words
PLACED_WORKERS = 256  # workers whose thread ids are kept (and so kept off the caller's CPU)
_GETTID = {"x86_64": 186, "aarch64": 178, "arm64": 178}  # syscall numbers (gettid() is glibc 2.30+)

# The type of a thread's entry, ``ptr worker(ptr context)``, which run_chunks calls too.
WORKER = ll.FunctionType(PTR, [PTR])

_WORDS = ("busy", "owner_pid", "workers", "launches", "tickets", "finished", "sleepers",
          "waiting", "helpers", "job_worker", "job_context", "avoided_cpu", "allowed_known")
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
        self.sched_yield = libc("sched_yield", I32)
        self.pause = _pause_instruction(module)
        arch = llvm.get_process_triple().split("-")[0]
        self.placement = _Placement(module, _GETTID[arch]) if PLACEMENT and arch in _GETTID else None

    def _global(self, name: str, typ: ll.Type) -> ll.GlobalVariable:
        return _internal_global(self.module, name, typ)


def _internal_global(module: ll.Module, name: str, typ: ll.Type) -> ll.GlobalVariable:
    """A zeroed global of the pool's module, on a cache line of its own."""
    g = ll.GlobalVariable(module, typ, name)
    g.linkage = "internal"
    g.initializer = ll.Constant(typ, None)
    g.align = CACHE_LINE
    return g


class _Placement:
    """The workers kept off the launching thread's CPU (``PLACEMENT``): the CPUs the pool may
    use, each worker's thread id, and the C library's calls for them."""

    def __init__(self, module: ll.Module, gettid: int):
        self.gettid = gettid
        self.syscall = module.globals.get("syscall") or ll.Function(
            module, ll.FunctionType(I64, [I64], var_arg=True), "syscall")
        self.getcpu = declare(module, "sched_getcpu", I32, [])
        self.get_affinity = declare(module, "sched_getaffinity", I32, [I32, I64, PTR])
        self.set_affinity = declare(module, "sched_setaffinity", I32, [I32, I64, PTR])
        self.allowed = _internal_global(module, "jitcore_pool_allowed", ll.ArrayType(I64, MASK_WORDS))
        self.elsewhere = _internal_global(module, "jitcore_pool_elsewhere", ll.ArrayType(I64, MASK_WORDS))
        self.tids = _internal_global(module, "jitcore_pool_tids", ll.ArrayType(I64, PLACED_WORKERS))

    def tid_slot(self, b: ll.IRBuilder, index: ll.Value) -> ll.Value:
        return b.gep(self.tids, [ll.Constant(I64, 0), index])

    def record_tid(self, b: ll.IRBuilder, index: ll.Value) -> None:
        """A worker's first step: its thread id where the caller finds it."""
        with b.if_then(b.icmp_unsigned("<", index, ll.Constant(I64, PLACED_WORKERS))):
            tid = b.call(self.syscall, [ll.Constant(I64, self.gettid)])
            b.store_atomic(tid, self.tid_slot(b, index), "release", 8)

    def read_allowed(self, e: _Emitter) -> None:
        """The CPUs the (new) pool may use: the launching thread's, as its workers inherit."""
        b = e.b
        size = ll.Constant(I64, MASK_WORDS * 8)
        read = b.call(self.get_affinity, [ll.Constant(I32, 0), size, self.allowed])
        e.store("allowed_known", b.zext(b.icmp_signed("==", read, ll.Constant(I32, 0)), I64))
        e.store("avoided_cpu", -1)
        # a forked child's copy holds its parent's thread ids: never set another's affinity
        emit_loop(b, ll.Constant(I64, PLACED_WORKERS),
                    lambda index: b.store_atomic(ll.Constant(I64, 0), self.tid_slot(b, index), "release", 8))

    def keep_off_caller(self, e: _Emitter, helpers: ll.Value, moved: ll.Value | None) -> None:
        """If this thread's CPU is not the one the workers avoid, set the affinity of the
        ``helpers`` workers this launch takes to the pool's CPUs less this one."""
        b = e.b
        cpu = b.sext(b.call(self.getcpu, []), I64)
        new = b.and_(b.icmp_signed("!=", cpu, e.load("avoided_cpu")),
                     b.icmp_unsigned("<", cpu, ll.Constant(I64, MASK_WORDS * 64)))
        known = b.icmp_signed("!=", e.load("allowed_known"), ll.Constant(I64, 0))
        with b.if_then(b.and_(new, known), likely=False):
            which = b.lshr(cpu, ll.Constant(I64, 6))
            bit = b.shl(ll.Constant(I64, 1), b.and_(cpu, ll.Constant(I64, 63)))
            other = ll.Constant(I64, 0)
            for k in range(MASK_WORDS):
                at = [ll.Constant(I64, 0), ll.Constant(I64, k)]
                word = b.load(b.gep(self.allowed, at), typ=I64)
                here = b.icmp_unsigned("==", which, ll.Constant(I64, k))
                word = b.select(here, b.and_(word, b.not_(bit)), word)
                b.store(word, b.gep(self.elsewhere, at))
                other = b.or_(other, word)
            e.store("avoided_cpu", cpu)
            with b.if_then(b.icmp_unsigned("!=", other, ll.Constant(I64, 0))):  # another CPU to use
                count = b.select(b.icmp_signed("<", helpers, ll.Constant(I64, PLACED_WORKERS)),
                                 helpers, ll.Constant(I64, PLACED_WORKERS))

                def place(index: ll.Value) -> None:
                    tid = b.load_atomic(self.tid_slot(b, index), "acquire", 8, typ=I64)
                    with b.if_else(b.icmp_signed("!=", tid, ll.Constant(I64, 0))) as (known, starting):
                        with known:
                            b.call(self.set_affinity, [b.trunc(tid, I32), ll.Constant(I64, MASK_WORDS * 8),
                                                       self.elsewhere])
                        with starting:  # its id not yet recorded: placed at a later launch
                            e.store("avoided_cpu", -1)
                emit_loop(b, count, place)
                if moved is not None:
                    b.atomic_rmw("add", moved, ll.Constant(I64, 1), "monotonic")


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


def monotonic_ns(b: ll.IRBuilder) -> ll.Value:
    """CLOCK_MONOTONIC in nanoseconds at the builder's position (the C library's
    ``clock_gettime``, a read of the vDSO's clock: about 25 ns)."""
    module = b.module
    clock = declare(module, "clock_gettime", I32, [I32, PTR])
    with b.goto_entry_block():
        timespec = b.alloca(ll.ArrayType(I64, 2))  # time_t and long: 64-bit on our targets
    b.call(clock, [ll.Constant(I32, time.CLOCK_MONOTONIC), timespec])
    seconds, nanoseconds = (b.load(b.gep(timespec, [ll.Constant(I32, 0), ll.Constant(I32, k)]), typ=I64)
                            for k in (0, 1))
    return b.add(b.mul(seconds, ll.Constant(I64, 1_000_000_000)), nanoseconds)


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
                   spin_ns: ll.Value | None = None, heartbeat: ll.Value | None = None) -> None:
        """Spin for up to ``spin_ns`` nanoseconds (``SPIN_NS``; 0: none) until ``ready()`` (an
        i1 built at each look) holds, a pause between looks and a look at the clock and a
        ``sched_yield`` every ``PAUSES_PER_LOOK`` pauses; then block on ``condition`` with
        ``announce`` counted up while blocked, so the thread that makes ``ready()`` hold knows
        to wake it. Falls through once it holds. With ``heartbeat`` (an i64's address), the
        clock is stored there when the spin starts and after each yield that returns before
        the spin's end, unless it holds a later time (another worker's): when a spinning
        thread was last seen on a core, ready to notice ``ready()`` within a pause."""
        b = self.b
        spin_ns = ll.Constant(I64, SPIN_NS) if spin_ns is None else spin_ns
        timed, spin, not_yet, pause, look, give_way, lock, check, sleep, awake, done = (
            self.block(n) for n in ("timed", "spin", "not_yet", "pause", "look", "yield", "lock", "check",
                                    "sleep", "awake", "ready"))
        b.cbranch(b.icmp_signed(">", spin_ns, ll.Constant(I64, 0)), timed, lock)
        b.position_at_end(timed)
        start = monotonic_ns(b)
        if heartbeat is not None:
            b.atomic_rmw("max", heartbeat, start, "monotonic")
        deadline = b.add(start, spin_ns)
        started = b.block
        b.branch(spin)
        b.position_at_end(spin)
        round_ = b.phi(I64)
        round_.add_incoming(ll.Constant(I64, 0), started)
        b.cbranch(ready(), done, not_yet)
        b.position_at_end(not_yet)
        b.cbranch(b.icmp_signed("<", round_, ll.Constant(I64, PAUSES_PER_LOOK)), pause, look)
        b.position_at_end(pause)
        if self.pool.pause is not None:
            b.call(*self.pool.pause)
        round_.add_incoming(b.add(round_, ll.Constant(I64, 1)), pause)
        b.branch(spin)
        b.position_at_end(look)
        b.cbranch(b.icmp_signed("<", monotonic_ns(b), deadline), give_way, lock)
        b.position_at_end(give_way)
        b.call(self.pool.sched_yield, [])
        if heartbeat is not None:  # back on a core (a yield to another thread may take long)
            beat = self.block("beat")
            back = monotonic_ns(b)
            b.cbranch(b.icmp_signed("<", back, deadline), beat, lock)
            b.position_at_end(beat)
            b.atomic_rmw("max", heartbeat, back, "monotonic")
        round_.add_incoming(ll.Constant(I64, 0), b.block)
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
                    threads_wanted: Callable[[ll.IRBuilder], ll.Value],
                    heartbeat: Callable[[ll.IRBuilder], ll.Value] | None = None,
                    moved: Callable[[ll.IRBuilder], ll.Value] | None = None) -> None:
    """Define ``void <symbol>(worker, ptr context, i64 chunks)`` in ``module``: run
    ``worker(context)`` on the calling thread and on up to ``threads_wanted - 1`` of the pool's
    workers, returning when all have returned. ``threads_wanted(b)`` builds the thread count at
    ``b`` (at least 1, at most ``chunks``). ``heartbeat(b)``, if given, builds the address of
    an i64 where a worker spinning between launches stores the clock (``wait_until``);
    ``moved(b)``, of an i64 counting the times the workers were kept off a new caller CPU.

    A null ``worker`` warms the pool instead: the workers a launch of ``threads_wanted`` would
    take are started or woken, with nothing to run, and spin for the next launch, while the
    caller returns at once (a launch that found them parked and ran on its own thread calls
    it, so that the next one finds them hot). A no-op where none is parked."""
    pool = _Pool(module)
    pool_worker = _emit_pool_worker(pool, heartbeat)
    fn = ll.Function(module, ll.FunctionType(ll.VoidType(), [WORKER.as_pointer(), PTR, I64]), symbol)
    worker, context, _ = fn.args
    e = _Emitter(pool, fn)
    b = e.b
    zero, one = ll.Constant(I64, 0), ll.Constant(I64, 1)
    alone, take, stale, steal, owned, done = (e.block(n) for n in (
        "alone", "take", "stale", "steal", "owned", "done"))

    warming = b.icmp_unsigned("==", worker, ll.Constant(worker.type, None))
    threads = threads_wanted(b)
    wanted = b.sub(threads, one)
    several = b.icmp_signed(">", threads, one)
    with b.if_then(b.and_(warming, several), likely=False):  # every worker there, none parked
        ready = b.and_(b.icmp_signed("==", e.load("sleepers"), zero),
                       b.icmp_signed(">=", e.load("workers"), wanted))
        with b.if_then(ready):
            pid = b.sext(b.call(pool.getpid, []), I64)  # and not a forked child's copy of them
            with b.if_then(b.icmp_signed("==", e.load("owner_pid"), pid)):
                b.ret_void()
    b.cbranch(several, take, alone)

    b.position_at_end(alone)  # one thread wanted, or the pool busy in this process
    with b.if_then(b.not_(warming)):
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
    helpers = _emit_grow(e, pool_worker, wanted)
    if pool.placement is not None:
        pool.placement.keep_off_caller(e, helpers, None if moved is None else moved(b))

    none_started = b.icmp_signed("==", helpers, zero)
    with b.if_else(warming) as (warm, launch):
        with warm:
            with b.if_then(b.not_(none_started)):
                _emit_warm(e, helpers)
        with launch:
            with b.if_else(none_started) as (by_itself, shared):
                with by_itself:
                    b.call(worker, [context])
                with shared:
                    _emit_shared_launch(e, worker, context, helpers)
    e.store("busy", 0, "release")
    b.branch(done)
    b.position_at_end(done)
    b.ret_void()


def _emit_warm(e: _Emitter, helpers: ll.Value) -> None:
    """A launch with no tickets: ``helpers`` workers wake (or stop spinning), find nothing to
    take, and spin for ``SPIN_NS`` as after a launch."""
    e.store("helpers", helpers)
    e.store("tickets", 0, "release")
    e.rmw("add", "launches", 1)
    e.wake("sleepers", "work_ready")


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
    if e.pool.placement is not None:
        e.pool.placement.read_allowed(e)


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
    if e.pool.placement is not None:  # placed at the next launch (its id recorded by then)
        e.store("avoided_cpu", -1)
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


def _emit_pool_worker(pool: _Pool, heartbeat: Callable[[ll.IRBuilder], ll.Value] | None) -> ll.Function:
    """``ptr pool_worker(ptr index)``: a worker's life. Park until the launch counter moves;
    if this worker is one the launch wants and a ticket is left, run the launch's worker on its
    context and count itself finished; park again."""
    fn = ll.Function(pool.module, WORKER, "jitcore_pool_worker")
    fn.linkage = "internal"
    e = _Emitter(pool, fn)
    b = e.b
    index = b.ptrtoint(fn.args[0], I64)
    if pool.placement is not None:
        pool.placement.record_tid(b, index)
    entry = b.block
    park, launched, wanted, run = (e.block(n) for n in ("park", "launched", "wanted", "run"))
    b.branch(park)

    b.position_at_end(park)
    seen = b.phi(I64)
    seen.add_incoming(ll.Constant(I64, 0), entry)
    spin = b.phi(I64)  # a worker the last launch did not want blocks at once
    spin.add_incoming(ll.Constant(I64, SPIN_NS), entry)
    e.wait_until(lambda: b.icmp_signed("!=", e.load("launches", "seq_cst"), seen), "sleepers", "work_ready",
                 spin, None if heartbeat is None else heartbeat(b))
    now = e.load("launches", "acquire")
    b.branch(launched)

    b.position_at_end(launched)
    b.cbranch(b.icmp_signed("<", index, e.load("helpers")), wanted, park)
    seen.add_incoming(now, launched)
    spin.add_incoming(ll.Constant(I64, 0), launched)

    b.position_at_end(wanted)
    before = b.atomic_rmw("sub", pool.words["tickets"], ll.Constant(I64, 1), "acq_rel")
    b.cbranch(b.icmp_signed(">", before, ll.Constant(I64, 0)), run, park)
    seen.add_incoming(now, wanted)
    spin.add_incoming(ll.Constant(I64, SPIN_NS), wanted)

    b.position_at_end(run)
    job = b.inttoptr(e.load("job_worker"), WORKER.as_pointer())
    context = b.inttoptr(e.load("job_context"), PTR)
    b.call(job, [context])
    e.rmw("add", "finished", 1)
    e.wake("waiting", "work_done")
    seen.add_incoming(now, b.block)
    spin.add_incoming(ll.Constant(I64, SPIN_NS), b.block)
    b.branch(park)
    return fn
