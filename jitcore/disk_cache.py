"""The persistent disk cache: compiled plans kept across processes, so that a new process that
calls an already-compiled function runs neither the pass pipeline nor LLVM.

What is stored. The plan of each compile (``codegen/plan.py``: descriptor layout, constants,
launches, object code; ``jitcore/plan_file.py`` writes it as JSON and raw bytes, never pickle),
the object code of the targets' own support code (the CPU's thread runtime), which would
otherwise be compiled once per process, and, in ``.code`` files beside the entries, the
converted code of the user's functions (``autograph.convert``), keyed by the original code
object: tracing needs it before a plan's key can be taken, and converting costs a few
milliseconds; and, in ``.host`` files, the host's description as the CPU target asks LLVM for it
(``codegen/cpu/target.py``, ``HOST_MEMO``: triple, CPU name and features, under the boot's id),
half a millisecond of a first call. Those files are evicted and cleared with the entries but
not counted as entries.

The key of a plan is a digest of the traced module's text (the generic form, which holds every
attribute and constant in full), the compile options (pipeline, fast math, target), the
arguments' layout classes (C-contiguous, Fortran, reversed, strided, ...), the caller's
array-header layout, and what the code depends on besides: the target's ``magic()`` (triple,
CPU name, features with the vector width) and ``fingerprint()`` (which BLAS, the size
thresholds of its lowering), the versions of llvmlite, LLVM and NumPy, and jitcore's own
version, taken as its source: the name, size and modification time of each module that turns a
traced module into code (``versioned_files``: the compiler layers, the lowering modules of
jitcore, autograph; not the tracer, whose output is the key)
(a release, an upgrade or an edited checkout are each a new version; stat calls cost a fraction
of a millisecond, hashing the source would cost a few). The
key is taken before the pass pipeline, not after it: a disk hit then skips the passes too
(2 ms of the 5 ms budget for ``tanh(x * 2 + y)``), at no loss, since the pipeline is in the key.

Safety. Entries are written to a temporary file in the directory and renamed over the entry
(``os.replace``, atomic): a reader sees a whole old entry or a whole new one, and processes that
write one key at once each write a whole, valid entry. Each entry carries a SHA-256 digest of its
contents, checked before anything in it is parsed, and its own key and kind: a corrupt,
truncated or foreign entry (another key's, or another format's) is ignored, and the compile that
follows writes it anew. No fsync: an entry cut short by a crash fails its digest and is rebuilt.
The directory is made with mode 0700, and one that another user owns or others can write to is
not used at all (a warning says so once), so nobody else's code is ever loaded; an entry file
owned by another user is ignored.

In memory. ``keep_in_memory(folder)`` keeps a folder's entries in this process's memory
instead of in files: the same bytes, digest, kind and key, read back through the same checks,
but no file made, written and renamed per compile (about 2.5% of a compile-heavy test's CPU, a
third of it making the temporary file). The test suite keeps its own cache this way, since it
empties it before every test anyway (tests/conftest.py); other processes do not see such
entries, and the cap applies to them as to files (the oldest go first).

Size. Past ``config.cache_max_bytes`` the least recently used entries are removed (a hit sets
its entry's modification time, if it is more than a minute old: access times are often not
kept). A process sums the directory once, at its first store, and again whenever its running
total passes the cap; then it removes the oldest entries down to 90% of the cap, and temporary
files left by killed writers.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import os
import stat
import sys
import tempfile
import threading
import time
import warnings
from dataclasses import dataclass
from functools import cache

import llvmlite
import llvmlite.binding as llvm
import numpy as np

from jitcore import _layers, config, ir, plan_file
from jitcore.autograph import convert
from jitcore.codegen.backend import TARGETS, backend_for
from jitcore.codegen.cpu import target as cpu_target
from jitcore.codegen.plan import CompiledFunction
from jitcore.dispatch import ARRAY_HEADER
from jitcore.errors import DiskCacheWarning

MAGIC = b"jitcore cache 1\n"  # the file format; a new format is a new magic
_DIGEST = 32
_KEY = 64  # hex SHA-256
SUFFIX = ".entry"
CODE_SUFFIX = ".code"  # converted Python code (autograph's), beside the compiled entries
HOST_SUFFIX = ".host"  # the CPU target's description of the host, for this boot
_EXTRAS = (CODE_SUFFIX, HOST_SUFFIX)  # evicted and cleared with the entries, not counted
TEMP_PREFIX = ".tmp-"
STALE_TEMP_SECONDS = 600.0  # a temporary file this old is a killed writer's
# A hit sets its entry's mtime only when it is older than this: eviction's order is then right
# to the minute, and a process loading entries used a moment ago writes nothing.
TOUCH_AFTER_SECONDS = 60.0
EVICT_TO = 0.9  # of the cap: eviction leaves room, so that the next stores do not evict again
PLAN, OBJECT, CODE, HOST = b"plan", b"objc", b"code", b"host"  # what an entry holds

_lock = threading.Lock()
_checked: dict[str, str | None] = {}  # directory -> None (usable) or why it is not
_UNCHECKED = object()
_totals: dict[str, int] = {}  # directory -> bytes of entries, as this process counts them
_in_memory: dict[str, dict[str, bytes]] = {}  # directory -> its entries by path (keep_in_memory)


@dataclass(frozen=True)
class DiskCacheInfo:
    """What ``info()`` reports: the directory, whether it is used (``problem`` says why not),
    and its entries."""

    directory: str
    enabled: bool
    problem: str | None
    entries: int
    bytes: int
    max_bytes: int


# -- the directory ---------------------------------------------------------------------------
def directory() -> str | None:
    """The cache directory when the cache is on and the directory is safe to use, else None."""
    if not config.disk_cache:
        return None
    path = config.cache_dir
    problem = _checked.get(path, _UNCHECKED)
    if problem is _UNCHECKED:
        problem = _check_directory(path)
        with _lock:
            if path not in _checked and problem is not None:
                warnings.warn(DiskCacheWarning(
                    f"jitcore does not use the disk cache at {path}: {problem}. Compiled code is kept "
                    "in memory only; make the directory yours alone (chmod 700) or set "
                    "JITCORE_CACHE_DIR to one that is"), stacklevel=2)
            _checked[path] = problem
    return path if problem is None else None


def _check_directory(path: str) -> str | None:
    """Why ``path`` may not hold the cache (made if missing, mode 0700), or None if it may."""
    try:
        os.makedirs(path, mode=0o700, exist_ok=True)
        info = os.stat(path)
    except OSError as e:
        return f"it cannot be made ({e.strerror})"
    if not stat.S_ISDIR(info.st_mode):
        return "it is not a directory"
    if os.name == "posix":
        if info.st_uid != os.geteuid():
            return f"it belongs to another user (uid {info.st_uid})"
        if info.st_mode & 0o022:
            return f"others can write to it (mode {info.st_mode & 0o777:o})"
    return None


def _owned(info: os.stat_result) -> bool:
    return os.name != "posix" or info.st_uid == os.geteuid()


# -- keys ------------------------------------------------------------------------------------
# What jitcore's version covers, besides its compiler layers (ir/, passes/, codegen/: every
# module): the modules of jitcore itself that drive a compile, turn a traced module into a
# stored plan or read one back, and autograph, whose converted code the ``.code`` entries
# keep. The rest of jitcore is the tracer, which runs again at every call: its output, the
# traced module, is the key.
VERSIONED_MODULES = ("api.py", "compiler.py", "size_generic.py", "plan_file.py", "disk_cache.py",
                     "dispatch.py", "config.py", "__init__.py", "_layers.py")
VERSIONED_FOLDERS = ("autograph",)


@cache
def source_version() -> str:
    """jitcore's version as its source: a digest of the name, size and mtime of each module
    that ``versioned_files`` lists (about 110 stat calls and 9 folders listed: half a
    millisecond)."""
    return _version(versioned_files())


def versioned_files() -> list[tuple[str, int, int]]:
    """Each module that jitcore's version covers (see ``VERSIONED_MODULES``): its path, size
    and modification time (ns)."""
    import jitcore.codegen
    import jitcore.ir
    import jitcore.passes

    folders = [root for layer in (jitcore.ir, jitcore.passes, jitcore.codegen) for root in layer.__path__]
    folders += [os.path.join(_layers.PACKAGE_DIR, name) for name in VERSIONED_FOLDERS]
    found: list[tuple[str, int, int]] = []
    for folder in dict.fromkeys(os.path.abspath(folder) for folder in folders):
        _modules_in(folder, found)
    for name in VERSIONED_MODULES:
        path = os.path.join(_layers.PACKAGE_DIR, name)
        with contextlib.suppress(FileNotFoundError):  # a module removed is a new version too
            info = os.stat(path)
            found.append((path, info.st_size, info.st_mtime_ns))
    return found


def _modules_in(folder: str, found: list) -> None:
    with os.scandir(folder) as items:
        for item in items:
            if item.name.endswith(".py"):
                info = item.stat()
                found.append((item.path, info.st_size, info.st_mtime_ns))
            elif item.name != "__pycache__" and item.is_dir():
                _modules_in(item.path, found)


def _version(files: list[tuple[str, int, int]]) -> str:
    # Paths relative to the package's parent: a checkout moved elsewhere keeps its entries.
    base = len(os.path.dirname(_layers.PACKAGE_DIR)) + 1
    listed = sorted((path[base:], size, mtime) for path, size, mtime in files)
    return hashlib.sha256(repr(listed).encode()).hexdigest()


def _digest(*parts: str) -> str:
    digest = hashlib.sha256()
    for part in parts:
        data = part.encode()
        digest.update(len(data).to_bytes(8, "little"))
        digest.update(data)
    return digest.hexdigest()


def _environment(target: str) -> str:
    """What any code of ``target`` depends on besides its own source (see the docstring)."""
    return (f"{MAGIC!r} jitcore {source_version()} llvmlite {llvmlite.__version__} "
            f"llvm {llvm.llvm_version_info} numpy {np.__version__} "
            f"magic {backend_for(target).magic()!r}")


def plan_key(traced: str, layouts: tuple[str, ...], options) -> str:
    """The key of the plan compiled from the traced module's text ``traced`` with ``options``
    (a ``compiler.CompileOptions``) for arguments of the layout classes ``layouts``
    (``ir/layout_class.py``: the code is specialised on them)."""
    backend = backend_for(options.target)
    return _digest("plan", _environment(options.target), backend.fingerprint(), repr(options),
                   repr(layouts), repr(ARRAY_HEADER), traced)


# -- entries ---------------------------------------------------------------------------------
class Entry:
    """One plan's place in the cache: ``load()`` it, or ``store()`` it once compiled."""

    __slots__ = ("folder", "key")

    def __init__(self, folder: str, key: str):
        self.folder = folder
        self.key = key

    def load(self) -> CompiledFunction | None:
        """The stored plan, or None when there is none or it fails any check."""
        payload = _read(self.folder, self.key, PLAN)
        if payload is None:
            return None
        try:
            return plan_file.decode(payload)
        except plan_file.FormatError:
            return None

    def store(self, plan: CompiledFunction) -> None:
        # Where this process got the code (LLVM, its memo) is not the entry's to keep: read
        # back, the code comes from disk; and an entry's bytes depend on its plan alone.
        _write(self.folder, self.key, PLAN, plan_file.encode(dataclasses.replace(plan, code_source="disk")))


def entry(module, specs, options) -> Entry | None:
    """Where the plan of the traced ``module`` compiled with ``options`` for arguments ``specs``
    (``compiler.ArgSpec``) lives in the cache; None when the cache is off or unusable."""
    folder = directory()
    if folder is None:
        return None
    return Entry(folder, plan_key(ir.print_op(module), tuple(s.layout for s in specs), options))


def keep_in_memory(folder: str) -> dict[str, bytes]:
    """Keep the entries of ``folder`` in this process's memory from now on, not in files (see
    the docstring); the store, a dict of each entry's bytes by its path, for its owner to empty."""
    with _lock:
        return _in_memory.setdefault(os.path.abspath(folder), {})


def _read(folder: str, key: str, kind: bytes) -> bytes | None:
    """The payload of entry ``key`` if it is there, ours, whole, and of ``kind``; else None."""
    path = os.path.join(folder, key + _suffix(kind))
    memory = _in_memory.get(folder)
    info = None
    if memory is not None:
        data = memory.get(path)
        if data is None:
            return None
    else:
        try:
            with open(path, "rb") as f:
                info = os.fstat(f.fileno())
                if not _owned(info):
                    return None
                data = f.read()
        except OSError:
            return None
    start = len(MAGIC) + _DIGEST
    body = data[start:]
    if (data[:len(MAGIC)] != MAGIC or hashlib.sha256(body).digest() != data[len(MAGIC):start]
            or body[:len(kind)] != kind or body[len(kind):len(kind) + _KEY] != key.encode()):
        return None
    if info is not None and time.time() - info.st_mtime > TOUCH_AFTER_SECONDS:
        with contextlib.suppress(OSError):
            os.utime(path)  # used now: the last to be evicted
    return body[len(kind) + _KEY:]


def _write(folder: str, key: str, kind: bytes, payload: bytes) -> None:
    """Store entry ``key`` atomically; a cache that cannot be written to is only not written to."""
    body = kind + key.encode() + payload
    data = MAGIC + hashlib.sha256(body).digest() + body
    memory = _in_memory.get(folder)
    if memory is not None:
        _keep(memory, os.path.join(folder, key + _suffix(kind)), data)
        return
    try:
        fd, temporary = tempfile.mkstemp(prefix=TEMP_PREFIX, dir=folder)  # mode 0600
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(temporary, os.path.join(folder, key + _suffix(kind)))
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise
    except OSError:
        with _lock:
            _checked.pop(folder, None)  # removed meanwhile, say: check it again next time
        return
    _count(folder, len(data))


def _keep(memory: dict[str, bytes], path: str, data: bytes) -> None:
    """Store an in-memory entry; past the cap, drop the oldest down to ``EVICT_TO`` of it."""
    cap = config.cache_max_bytes
    with _lock:
        memory.pop(path, None)  # a rewritten entry is the newest
        memory[path] = data
        total = sum(map(len, memory.values()))  # its owner may have emptied it meanwhile
        if total > cap:
            for old in list(memory):
                if total <= int(cap * EVICT_TO):
                    break
                total -= len(memory.pop(old))


def _suffix(kind: bytes) -> str:
    return {CODE: CODE_SUFFIX, HOST: HOST_SUFFIX}.get(kind, SUFFIX)


def _count(folder: str, added: int) -> None:
    """Add a stored entry to the directory's total; past the cap, evict."""
    cap = config.cache_max_bytes
    with _lock:
        total = _totals.get(folder)
        if total is not None and total + added <= cap:
            _totals[folder] = total + added
            return
    total = evict(folder, cap, int(cap * EVICT_TO))
    with _lock:
        _totals[folder] = total


def evict(folder: str, cap: int, down_to: int) -> int:
    """If the entries of ``folder`` take more than ``cap`` bytes, remove the least recently used
    until they take at most ``down_to``; remove stale temporary files. The bytes left."""
    entries, now = [], time.time()
    try:
        with os.scandir(folder) as found:
            for item in found:
                with contextlib.suppress(OSError):
                    info = item.stat(follow_symlinks=False)
                    if item.name.endswith((SUFFIX, *_EXTRAS)) and stat.S_ISREG(info.st_mode):
                        entries.append((info.st_mtime, info.st_size, item.path))
                    elif item.name.startswith(TEMP_PREFIX) and now - info.st_mtime > STALE_TEMP_SECONDS:
                        os.unlink(item.path)
    except OSError:
        return 0
    total = sum(size for _, size, _ in entries)
    if total <= cap:
        return total
    for _, size, path in sorted(entries):
        if total <= down_to:
            break
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass  # another process evicted it
        except OSError:
            continue
        total -= size
    return total


# -- the targets' support code ---------------------------------------------------------------
class _ObjectCache:
    """``codegen.backend.ObjectCache`` on the disk cache, for one target's support code."""

    def __init__(self, target: str):
        self.target = target

    def _key(self, name: str, source: str) -> str:
        return _digest("object", _environment(self.target), name, source)

    def load_object(self, name: str, source: str) -> bytes | None:
        folder = directory()
        return None if folder is None else _read(folder, self._key(name, source), OBJECT)

    def store_object(self, name: str, source: str, code: bytes) -> None:
        folder = directory()
        if folder is not None:
            _write(folder, self._key(name, source), OBJECT, code)


for _target in TARGETS:
    backend_for(_target).use_object_cache(_ObjectCache(_target))


class _HostMemo:
    """``codegen/cpu/target.py``'s ``HOST_MEMO`` on the disk cache: the host's description by
    the target's key (which names the boot) and jitcore's version (whose rules, the vector
    width's, shape the features), and the math library's definitions by their names, width and
    jitcore's version; each in an entry checked as a plan's is."""

    @staticmethod
    def _key(key: str) -> str:
        return _digest("host", MAGIC.decode(), source_version(), key)

    def load(self, key: str) -> str | None:
        folder = directory()
        data = None if folder is None else _read(folder, self._key(key), HOST)
        try:
            return None if data is None else data.decode()
        except UnicodeDecodeError:
            return None

    def store(self, key: str, text: str) -> None:
        folder = directory()
        if folder is not None:
            _write(folder, self._key(key), HOST, text.encode())


cpu_target.HOST_MEMO = _HostMemo()


# -- converted Python code -------------------------------------------------------------------
class _CodeStore:
    """``autograph.convert``'s code store on the disk cache: converted code by the original's.
    Marshalled code is only read back by the Python that wrote it (its version is in the key),
    from an entry whose digest, kind, key and owner are checked as a plan's are."""

    @staticmethod
    def _key(code: bytes) -> str:
        return _digest("autograph", MAGIC.decode(), source_version(), sys.version,
                       sys.implementation.cache_tag or "", hashlib.sha256(code).hexdigest())

    def load_code(self, code: bytes) -> bytes | None:
        folder = directory()
        return None if folder is None else _read(folder, self._key(code), CODE)

    def store_code(self, code: bytes, data: bytes) -> None:
        folder = directory()
        if folder is not None:
            _write(folder, self._key(code), CODE, data)


convert.use_code_store(_CodeStore())


# -- the user's commands ---------------------------------------------------------------------
def cache_clear() -> int:
    """Remove every entry of the disk cache (``config.cache_dir``); the number of compiled
    entries removed (the converted code beside them goes too, uncounted). A directory that the
    cache may not use is left alone."""
    folder = config.cache_dir
    if not os.path.isdir(folder) or _check_directory(folder) is not None:
        return 0
    removed = 0
    with os.scandir(folder) as found:
        for item in found:
            if item.name.endswith((SUFFIX, *_EXTRAS)) or item.name.startswith(TEMP_PREFIX):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(item.path)
                    removed += item.name.endswith(SUFFIX)
    with _lock:
        _totals.pop(folder, None)
        memory = _in_memory.get(folder, {})
        removed += sum(path.endswith(SUFFIX) for path in memory)
        memory.clear()
    return removed


def info() -> DiskCacheInfo:
    """The disk cache's directory, state, entries and bytes (without making the directory)."""
    folder = config.cache_dir
    problem = _check_directory(folder) if os.path.isdir(folder) else None
    entries = size = 0
    if os.path.isdir(folder):
        with os.scandir(folder) as found:
            for item in found:
                if item.name.endswith(SUFFIX):
                    with contextlib.suppress(OSError):
                        size += item.stat(follow_symlinks=False).st_size
                        entries += 1
    with _lock:
        kept = [data for path, data in _in_memory.get(folder, {}).items() if path.endswith(SUFFIX)]
    entries, size = entries + len(kept), size + sum(map(len, kept))
    return DiskCacheInfo(folder, config.disk_cache, problem, entries, size, config.cache_max_bytes)


def describe(found: DiskCacheInfo) -> str:
    """``info()`` as lines for people (``python -m jitcore cache info``)."""
    state = "on" if found.enabled and found.problem is None else (
        "off (JITCORE_CACHE=0)" if not found.enabled else f"not used: {found.problem}")
    return (f"directory: {found.directory}\nstate:     {state}\n"
            f"entries:   {found.entries}, {_size(found.bytes)} of at most {_size(found.max_bytes)}\n"
            f"jitcore:   source {source_version()[:16]}, llvmlite {llvmlite.__version__}, "
            f"LLVM {'.'.join(map(str, llvm.llvm_version_info))}, Python {sys.version.split()[0]}")


def _size(n: int) -> str:
    return f"{n / 2**20:.1f} MiB" if n >= 2**20 else f"{n / 2**10:.1f} KiB"
