"""Copies of large arrays between the host and the GPU through pinned (page-locked) staging
buffers, on a stream of their own.

The driver copies pageable memory (a NumPy array's) through a small pinned buffer of its own,
one piece at a time and synchronously. jitcore keeps two pinned buffers of ``CHUNK`` bytes
(``cuMemHostAlloc``) and a stream: a copy of ``PINNED_MIN_BYTES`` or more is cut into chunks,
and while chunk ``k`` is copied by the GPU's copy engine (``cuMemcpyHtoDAsync``) from one
buffer, the CPU fills the other with chunk ``k + 1`` (an event per buffer says when it is free
again); to the host likewise in reverse. The copy is done when the call returns, as the plain
copy is. The stream is a blocking one, so the default stream's launches wait for it.

Where pinning fails (no page-locked memory left, a driver or a stand-in without the calls),
``Staging.open`` returns None with the reason in ``why_not``, and the driver copies as before:
never an error for a copy that the plain path can make.
"""

from __future__ import annotations

import ctypes

CHUNK = 8 << 20  # bytes per staging buffer
PINNED_MIN_BYTES = 1 << 20  # smaller copies go straight: the staging would not pay


class Staging:
    """Two pinned buffers, an event for each, and a stream, for one context."""

    why_not = ""  # why the last ``open`` made no staging (for the tools and tests)

    def __init__(self, cuda, buffers: list[int], events: list, stream):
        self.cuda, self.buffers, self.events, self.stream = cuda, buffers, events, stream

    @classmethod
    def open(cls, cuda, chunk: int = CHUNK) -> Staging | None:
        """Pinned buffers and a stream from ``cuda`` (a ``driver.Driver``), or None (pinning
        failed: ``Staging.why_not`` says why) after freeing what was made."""
        lib, buffers, events, stream = cuda.lib, [], [], ctypes.c_void_p()
        try:
            for _ in range(2):
                pointer = ctypes.c_void_p()
                cuda.check("cuMemHostAlloc", lib.cuMemHostAlloc(ctypes.byref(pointer), ctypes.c_size_t(chunk),
                                                                  ctypes.c_uint(0)))
                buffers.append(pointer.value)
                event = ctypes.c_void_p()
                cuda.check("cuEventCreate", lib.cuEventCreate(ctypes.byref(event), ctypes.c_uint(0)))
                events.append(event)
            cuda.check("cuStreamCreate", lib.cuStreamCreate(ctypes.byref(stream), ctypes.c_uint(0)))
        except Exception as e:  # noqa: BLE001  (any failure: the plain copies still work)
            cls.why_not = f"{type(e).__name__}: {e}"
            for pointer in buffers:
                if pointer:
                    lib.cuMemFreeHost(ctypes.c_void_p(pointer))
            return None
        staging = cls(cuda, buffers, events, stream)
        staging.chunk = chunk
        return staging

    def _wait(self, k: int) -> None:
        self.cuda.check("cuEventSynchronize", self.cuda.lib.cuEventSynchronize(self.events[k % 2]))

    def _recorded(self, k: int) -> None:
        self.cuda.check("cuEventRecord", self.cuda.lib.cuEventRecord(self.events[k % 2], self.stream))

    def to_device(self, pointer: int, host: int, nbytes: int) -> None:
        lib, check = self.cuda.lib, self.cuda.check
        for k, offset in enumerate(range(0, nbytes, self.chunk)):
            size = min(self.chunk, nbytes - offset)
            if k >= 2:
                self._wait(k)  # buffer k % 2 was the source of chunk k - 2's copy
            ctypes.memmove(self.buffers[k % 2], host + offset, size)
            source = ctypes.c_void_p(self.buffers[k % 2])
            check("cuMemcpyHtoDAsync", lib.cuMemcpyHtoDAsync_v2(
                ctypes.c_uint64(pointer + offset), source, ctypes.c_size_t(size), self.stream))
            self._recorded(k)
        check("cuStreamSynchronize", lib.cuStreamSynchronize(self.stream))

    def to_host(self, host: int, pointer: int, nbytes: int) -> None:
        lib, check = self.cuda.lib, self.cuda.check
        pieces = [(offset, min(self.chunk, nbytes - offset)) for offset in range(0, nbytes, self.chunk)]

        def copy_out(k):  # chunk k has arrived in its buffer: to the array
            self._wait(k)
            ctypes.memmove(host + pieces[k][0], self.buffers[k % 2], pieces[k][1])

        for k, (offset, size) in enumerate(pieces):
            if k >= 2:
                copy_out(k - 2)  # frees buffer k % 2
            target = ctypes.c_void_p(self.buffers[k % 2])
            check("cuMemcpyDtoHAsync", lib.cuMemcpyDtoHAsync_v2(
                target, ctypes.c_uint64(pointer + offset), ctypes.c_size_t(size), self.stream))
            self._recorded(k)
        for k in range(max(0, len(pieces) - 2), len(pieces)):
            copy_out(k)
