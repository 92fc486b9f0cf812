"""Index checks in kernels whose points run in parallel (a gather, ``x[:, idx]``, ``np.take``):
every thread checks its own indices, and the error reported is the one the CPU reports.

The CPU runs such a kernel in C order and records the first bad index (the lowest point, then
the first check in the body at that point). On the GPU the bad indices are met in any order,
so each carries a key ``tag << 48 | point << 8 | check``: ``point`` the C-order position in the
kernel's domain (below 2**40, else the kernel runs serially), ``check`` the check's number in the
body (below 256), and ``tag`` the launch's number in its plan (from 1). A thread with a bad index
takes a lock (status word 5, a compare-and-swap spin), and records ``(INDEX_ERROR, index, axis,
size)`` in words 0..3 and its key in word 4 if no error is recorded yet, or if the one recorded is
this launch's with a greater key; then releases the lock. So the record is always one whole error
(never words of two), and the lowest key wins whatever the timing: the same message as on the CPU.
An error recorded by an earlier launch (another tag, or a serial kernel's, which leaves word 4 at 0)
stays. The bad index reads element 0 (never an access out of bounds) and the thread goes on; the
caller raises after the launch.
"""

from __future__ import annotations

from llvmlite import ir as ll

from jitcore.codegen.kernel_body import INDEX_ERROR, KernelBody
from jitcore.codegen.llvm_types import I64
from jitcore.codegen.loops import extent
from jitcore.ir.dialects import kernel
from jitcore.ir.location import describe

STATUS_BYTES = 64  # the status words of a GPU plan: the CPU's four, the key and the lock
KEY, LOCK = 4, 5
POINT_LIMIT = 1 << 40
CHECK_LIMIT = 1 << 8
TAG_LIMIT = 1 << 15


def parallel_checks_fit(domain, checks: int) -> bool:
    """Whether a kernel's keys fit their fields (else it runs serially)."""
    points = 1
    for d in domain:
        points *= d
    return points < POINT_LIMIT and checks < CHECK_LIMIT


def places(op: kernel.GenericOp, tag: int) -> dict[tuple[int, int], str]:
    """Where in the user's code each of a parallel kernel's checks is, by (tag, check number):
    the runtime names it in the error. (A kernel with checks runs in parallel only without
    nested regions, so its checks are the body's own, numbered in order.)"""
    found = [inner for inner in op.body.ops if isinstance(inner, kernel.CheckIndexOp)]
    return {(tag % TAG_LIMIT or 1, k): describe(inner.loc) for k, inner in enumerate(found)}


class ParallelCheckBody(KernelBody):
    """``KernelBody`` whose index checks record the lowest-key error under a lock."""

    def __init__(self, *args, domain, tag: int, **kwargs):
        super().__init__(*args, **kwargs)
        self.domain = list(domain)
        self.tag = tag % TAG_LIMIT or 1  # the launch's number in its plan, never 0
        self._check = 0
        self._ivs = None

    def evaluate(self, ivs, accumulators=None):
        self._check, self._ivs = 0, ivs  # checks are numbered in body order at each point
        return super().evaluate(ivs, accumulators)

    def _point(self) -> ll.Value:
        """The C-order position of the point being evaluated."""
        b, point = self.b, extent(0)
        for iv, n in zip(self._ivs, self.domain):
            point = b.add(b.mul(point, extent(n)), iv)
        return point

    def check_index(self, i: ll.Value, axis: int, size: int) -> ll.Value:
        b = self.b
        n = ll.Constant(I64, size)
        check, self._check = self._check, self._check + 1
        wrapped = b.select(b.icmp_signed("<", i, ll.Constant(I64, 0)), b.add(i, n), i)
        bad = b.icmp_unsigned(">=", wrapped, n)
        with b.if_then(bad, likely=False):
            key = b.or_(b.shl(self._point(), extent(8)), extent(check | self.tag << 48))
            self._record(key, (ll.Constant(I64, INDEX_ERROR), i, ll.Constant(I64, axis), n))
        return b.select(bad, ll.Constant(I64, 0), wrapped)

    def _record(self, key: ll.Value, words) -> None:
        b = self.b
        lock = self._status_word(LOCK)
        fn = b.function
        spin, held = fn.append_basic_block("lock.spin"), fn.append_basic_block("lock.held")
        b.branch(spin)
        b.position_at_end(spin)
        taken = b.cmpxchg(lock, extent(0), extent(1), "acquire", "monotonic")
        b.cbranch(b.extract_value(taken, 1), held, spin)
        b.position_at_end(held)
        # plain loads and stores: the acquire above and the release below order them
        flag = b.load(self._status_word(0), typ=I64)
        recorded = b.load(self._status_word(KEY), typ=I64)
        mine = b.icmp_unsigned("==", b.lshr(recorded, extent(48)), extent(self.tag))
        lower = b.and_(mine, b.icmp_unsigned("<", key, recorded))
        with b.if_then(b.or_(b.icmp_unsigned("==", flag, extent(0)), lower)):
            for slot, v in enumerate(words):
                b.store(v, self._status_word(slot))
            b.store(key, self._status_word(KEY))
        b.atomic_rmw("xchg", lock, extent(0), "release")
