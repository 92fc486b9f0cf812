"""Large results in recycled memory: a compiled call's big outputs reuse the blocks of results
the program has already dropped, instead of fresh pages from the OS.

Why: a C library returns an allocation this large (glibc: above 32 MiB; macOS: above about
128 KiB) to the OS when it is freed, so every call that returns a new 40 MB array first has
the kernel zero 10,000 fresh pages on first touch. On the 2-core EPYC of docs/performance.md
that doubled the time of writing a 10M-float result (np.copyto into a new array: 17.0 ms,
into an existing one: 6.4 ms). A loop that calls a jitted function and drops each result,
the common case, pays it every call; NumPy pays it too.

How: each pooled result is a view of a block (a uint8 array that owns its memory) that this
pool keeps a reference to. Every view and every view of a view holds the block as its
``base``, so the block is free exactly when the pool's own references are the only ones left:
``sys.getrefcount`` says so, and the baseline is measured once at import on this very code
path (``_calibrate``), so it holds on any CPython version. A free block of the right size is
handed out again; nothing is ever reused while any array can still reach it.

Bounds: blocks are kept for results of at least ``MIN_BYTES``; the pool never holds more than
``config.buffer_pool_bytes`` of blocks (idle or in use). A new block that would go over it
first evicts free blocks, least recently used first, and when the rest are all in use it is
not kept (its memory goes back to the OS when the result dies, as without a pool). So memory
the program no longer uses but the pool keeps is at most that setting; 0 turns the pool off;
``clear()`` lets go of every free block now.

Scratch: a buffer a call uses between its kernels and never returns (an FFT's stages, a row
group's members) is pooled from ``SCRATCH_MIN_BYTES`` (128 KiB). Below 32 MiB glibc keeps a
freed block in its heap, but when the blocks freed together at a call's end leave more than
its trim threshold (twice the largest block it has handed back by ``munmap``) free at the top,
it gives those pages back, and the next call faults them in again: 600 faults, 1.9 ms, of a
2.6 ms call for three 0.86 MB buffers of an FFT of rows (docs/performance.md, fft35).

A pooled result is an ordinary C-contiguous, aligned, writeable ndarray; like any view, its
``base`` is not None and ``flags.owndata`` is False (so ``ndarray.resize`` refuses it, as it
refuses any view). Free-threaded CPython (no GIL) has no exact reference counts to check, so
the pool is off there, as on Pythons other than CPython.
"""

from __future__ import annotations

import os
import sys
import threading
from collections import OrderedDict

import numpy as np


def _min_bytes() -> int:
    """The smallest result the pool keeps: below it the C library recycles freed blocks itself.
    glibc keeps blocks up to 32 MiB in its heap once one such block has been freed (its mmap
    threshold rises to the largest freed block, up to 32 MiB on 64-bit): a pooled 2 MB result
    only cost its call the Python path (0.83-0.91x NumPy for ``x // 7`` on 10^6 int16, 1.01-1.08x
    without; docs/performance.md, intdiv34). Other C libraries (macOS: above about 128 KiB;
    musl) return smaller blocks to the OS: 1 MiB there."""
    try:
        glibc = os.confstr("CS_GNU_LIBC_VERSION")
    except (AttributeError, ValueError, OSError):
        glibc = None
    return 32 << 20 if glibc and glibc.startswith("glibc") and sys.maxsize > 2 ** 32 else 1 << 20


MIN_BYTES = _min_bytes()
SCRATCH_MIN_BYTES = 128 << 10  # glibc's first mmap threshold: smaller blocks stay in its heap
ALIGN = 64  # bytes: a cache line, and the widest vector register
DEFAULT_LIMIT = 256 << 20

_getrefcount = sys.getrefcount
_uint8 = np.uint8


class BufferPool:
    """Blocks by size (bytes rounded up to a page), least recently handed out first."""

    def __init__(self, limit: int = DEFAULT_LIMIT):
        self.limit = limit
        self._blocks: OrderedDict[int, list[np.ndarray]] = OrderedDict()
        self._held = 0  # bytes of every block kept, free or in use
        # each kept block's offset to its first ALIGN-aligned byte, by id(block): reading
        # ``block.ctypes.data`` made a ctypes object per call (a third of a pooled call's cost)
        self._aligned: dict[int, int] = {}
        self._lock = threading.Lock()
        self._free_count = _calibrate()

    def empty(self, shape: tuple[int, ...], dtype, least: int | None = None) -> np.ndarray:
        """An uninitialised C-contiguous array of ``shape`` and ``dtype``, as ``np.empty``;
        pooled from ``least`` bytes (None: ``MIN_BYTES``, looked up now, so tests may set it)."""
        dtype = np.dtype(dtype)
        count = 1
        for extent in shape:
            count *= extent
        nbytes = count * dtype.itemsize
        if nbytes < (MIN_BYTES if least is None else least) or self._free_count is None or self.limit <= 0:
            return np.empty(shape, dtype)
        size = -(-nbytes // 4096) * 4096
        with self._lock:
            block = self._take(size)
            if block is None:
                block = self._new_block(size)
            offset = self._aligned.get(id(block))
            if offset is None:  # a block the pool does not keep (over its limit)
                offset = -block.ctypes.data % ALIGN
            return block[offset:offset + nbytes].view(dtype).reshape(shape)

    def _take(self, size: int) -> np.ndarray | None:
        blocks = self._blocks.get(size)
        if not blocks:
            return None
        free = _free_indices(blocks, self._free_count)
        if not free:
            return None
        self._blocks.move_to_end(size)
        return blocks[free[0]]

    def _new_block(self, size: int) -> np.ndarray:
        block = np.empty(size + ALIGN, _uint8)
        if self._held + block.nbytes > self.limit:
            self._evict(self._held + block.nbytes - self.limit)
        if self._held + block.nbytes <= self.limit:
            self._blocks.setdefault(size, []).append(block)
            self._held += block.nbytes
            self._aligned[id(block)] = -block.ctypes.data % ALIGN
        return block

    def _evict(self, wanted: int) -> None:
        """Let go of free blocks, the sizes least recently handed out first, until ``wanted``
        bytes are gone or no free block is left."""
        for size in list(self._blocks):
            blocks = self._blocks[size]
            for i in reversed(_free_indices(blocks, self._free_count)):
                if wanted <= 0:
                    break
                wanted -= blocks[i].nbytes
                self._held -= blocks[i].nbytes
                del self._aligned[id(blocks[i])]
                del blocks[i]
            if not blocks:
                del self._blocks[size]
            if wanted <= 0:
                return

    def set_limit(self, limit: int) -> None:
        """Keep at most ``limit`` bytes of blocks from now on, letting go of free ones above it."""
        with self._lock:
            self.limit = limit
            if self._held > limit:
                self._evict(self._held - limit)

    def clear(self) -> None:
        """Let go of every free block now (blocks in use are kept until they are free)."""
        with self._lock:
            self._evict(self._held + 1)

    def held_bytes(self) -> int:
        """Bytes of blocks the pool keeps, free or in use."""
        return self._held


def _free_indices(blocks: list[np.ndarray], free_count: int) -> list[int]:
    """The positions of the blocks nothing but ``blocks`` refers to. The one place that reads
    reference counts, so that ``_calibrate`` measures exactly what it sees."""
    found = []
    for i in range(len(blocks)):
        if _getrefcount(blocks[i]) == free_count:
            found.append(i)
    return found


def _calibrate() -> int | None:
    """The reference count ``_free_indices`` sees for a free block, found by trying it on one;
    None where reference counts cannot tell (free-threaded CPython, or a count that a live
    view does not change)."""
    if sys.implementation.name != "cpython" or getattr(sys, "_is_gil_enabled", lambda: True)() is False:
        return None
    blocks = [np.empty(4096 + ALIGN, _uint8)]
    free = next((count for count in range(1, 16) if _free_indices(blocks, count)), None)
    if free is None:
        return None
    view = blocks[0][:8]
    if _free_indices(blocks, free):
        return None
    del view
    return free if _free_indices(blocks, free) else None


POOL = BufferPool()


def allocator(shape: tuple[int, ...], dtype, scratch: bool = False):
    """What allocates a result (or, ``scratch``, a buffer the call never returns) of this shape
    and dtype: ``pooled_empty`` (``pooled_scratch``) for one large enough to pool, else
    ``np.empty`` itself (nothing added to a small buffer's call)."""
    count = 1
    for extent in shape:
        count *= extent
    nbytes = count * np.dtype(dtype).itemsize
    if scratch and nbytes >= SCRATCH_MIN_BYTES:
        return pooled_scratch
    return pooled_empty if nbytes >= MIN_BYTES else np.empty


def pooled_empty(shape: tuple[int, ...], dtype) -> np.ndarray:
    """``np.empty`` from the process's pool (looked up at each call, so tests may swap it)."""
    return POOL.empty(shape, dtype)


def pooled_scratch(shape: tuple[int, ...], dtype) -> np.ndarray:
    """``pooled_empty`` for a call's scratch, pooled from ``SCRATCH_MIN_BYTES``."""
    return POOL.empty(shape, dtype, SCRATCH_MIN_BYTES)
