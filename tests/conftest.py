"""The test run's disk cache: a temporary directory, empty at the start of every test.

Set before jitcore is imported (``JITCORE_CACHE_DIR``, which subprocesses that tests start
inherit too), so the suite neither reads the user's cache nor leaves files in it. Emptied
before each test: a plan stored by one test (compiled with a threshold it patched, say) is
never loaded by another. Removed when the run ends.
"""

import functools
import hashlib
import os
import shutil
import sys
import tempfile
import zlib

import pytest


def _keep_bytecode_outside_the_tree():
    """Where ``PYTHONDONTWRITEBYTECODE`` is set (this project's hosts set it: no ``__pycache__``
    in worktrees), every test process compiled jitcore and pytest rewrote every test module
    from source, each run: 9.5 s of a worker's CPU to collect, against 2.8 s from bytecode.
    Bytecode goes to a folder of the user's temporary directory instead (``sys.pycache_prefix``,
    which pytest's rewritten modules use too; the environment, for the tests' subprocesses);
    a module's bytecode is checked against its source's time and size as usual. A prefix the
    user chose is kept."""
    if os.environ.get("PYTHONPYCACHEPREFIX") or not sys.dont_write_bytecode:
        return None
    prefix = os.path.join(tempfile.gettempdir(), f"jitcore-test-bytecode-{os.getuid()}")
    os.makedirs(prefix, mode=0o700, exist_ok=True)
    if os.stat(prefix).st_uid != os.getuid():  # another user's folder: its bytecode is not trusted
        return None
    sys.pycache_prefix = os.environ["PYTHONPYCACHEPREFIX"] = prefix
    sys.dont_write_bytecode = False
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    return prefix


BYTECODE_PREFIX = _keep_bytecode_outside_the_tree()  # None: the user's own setting
CACHE_DIR = tempfile.mkdtemp(prefix="jitcore-test-cache-")
os.environ["JITCORE_CACHE_DIR"] = CACHE_DIR
os.environ.pop("JITCORE_CACHE", None)  # on, as users have it

# The backend's memo of recent compiles' code (``MEMO_BYTES``), 32 MiB for the test run instead
# of users' 256 KiB: the memo returns code only for the same LLVM IR text (digest checked),
# pipeline and machine, so a test gets the very code LLVM made for it before; what the larger
# memo saves is the same module compiled again by a later test of the same worker after 256 KiB
# of others had pushed it out (session 36: 1,096 such compiles, 23 s of the suite's CPU).
# Tests of the memo's bound set it back (test_bounded_cache.py) or to 0 (compile timings).
from jitcore.codegen.cpu import backend as _cpu_backend  # noqa: E402  (after JITCORE_CACHE_DIR is set)

_cpu_backend.MEMO_BYTES = 32 * 1024 * 1024


def _share_the_memo_between_workers():
    """The memo's entries written to a folder that the run's xdist workers share, so that a
    module one worker compiled is the other's too (the same LLVM IR text, digest checked, the
    same pipeline and machine: the code LLVM makes for it). The process that leads the run
    makes the folder and names it, with its pid, in the environment its workers inherit; a
    process whose parent is not that leader (a test's own subprocess) leads its own run.
    Reads and writes are whole files put in place by rename; a missing or unreadable file is a
    miss. Tests that turn the memo off (``MEMO_BYTES = 0``) turn this off too; a test of the
    memo itself takes the methods unshared (their ``__wrapped__``)."""
    told = os.environ.get("JITCORE_TEST_SHARED_MEMO", "")
    folder, _, leader = told.rpartition(":")
    if not (folder and leader == str(os.getppid()) and os.path.isdir(folder)):
        folder = tempfile.mkdtemp(prefix="jitcore-test-memo-")  # (a run with no workers: unused)
        os.environ["JITCORE_TEST_SHARED_MEMO"] = f"{folder}:{os.getpid()}"
        return folder
    memo = _cpu_backend._CodeMemo
    get, put = memo.get, memo.put

    def path(key, digest):
        return os.path.join(folder, hashlib.sha1(repr(key).encode() + digest).hexdigest())

    @functools.wraps(get)
    def shared_get(self, key, digest):
        found = get(self, key, digest)
        if found is not None or _cpu_backend.MEMO_BYTES <= 0:
            return found
        try:
            with open(path(key, digest), "rb") as f:
                data = f.read()
            length = int.from_bytes(data[:8], "little")
            code, text = zlib.decompress(data[8:8 + length]), zlib.decompress(data[8 + length:]).decode()
        except (OSError, zlib.error, UnicodeDecodeError):
            return None
        put(self, key, digest, code, text)
        return code, text

    @functools.wraps(put)
    def shared_put(self, key, digest, object_code, optimized_ir):
        put(self, key, digest, object_code, optimized_ir)
        if _cpu_backend.MEMO_BYTES <= 0:
            return
        target = path(key, digest)
        code = zlib.compress(object_code, 1)
        data = len(code).to_bytes(8, "little") + code + zlib.compress(optimized_ir.encode(), 1)
        try:
            with tempfile.NamedTemporaryFile(dir=folder, delete=False) as f:
                f.write(data)
            os.replace(f.name, target)
        except OSError:
            pass

    memo.get, memo.put = shared_get, shared_put
    return None


_SHARED_MEMO_FOLDER = _share_the_memo_between_workers()  # removed when the run ends, by its maker

# The run's cache is emptied before every test, so almost nothing stored is read back: its
# entries are kept in this process's memory instead of in files (``disk_cache.keep_in_memory``:
# every plan is still encoded, digested and, on a hit within a test, read back through the same
# checks; a file made, written and renamed per compile was about 2.5% of a compile-heavy file's
# CPU). tests/jitcore/test_disk_cache.py points the cache at folders of its own, on disk, and
# the tests' subprocesses use the folder on disk.
from jitcore import disk_cache as _disk_cache  # noqa: E402

_IN_MEMORY = _disk_cache.keep_in_memory(CACHE_DIR)


@pytest.fixture(autouse=True)
def _empty_disk_cache():
    from tests import jit_once

    jit_once.forget()  # the tests' shared jitted functions, like the disk cache: per test
    _IN_MEMORY.clear()
    os.makedirs(CACHE_DIR, mode=0o700, exist_ok=True)
    with os.scandir(CACHE_DIR) as found:
        for item in found:
            if item.is_dir(follow_symlinks=False):
                shutil.rmtree(item.path, ignore_errors=True)
            else:
                os.unlink(item.path)
    yield


def pytest_sessionfinish(session, exitstatus):
    shutil.rmtree(CACHE_DIR, ignore_errors=True)
    if _SHARED_MEMO_FOLDER is not None:
        shutil.rmtree(_SHARED_MEMO_FOLDER, ignore_errors=True)
    if BYTECODE_PREFIX is not None and not hasattr(session.config, "workerinput"):
        _forget_bytecode_of_removed_trees(BYTECODE_PREFIX)


def _forget_bytecode_of_removed_trees(prefix: str, depth: int = 3) -> None:
    """The bytecode folder mirrors the sources' absolute paths, so every temporary copy of the
    tree (``tools/mutants.py`` makes one per mutant, about 14 MB of bytecode each) would stay in
    it: drop the mirror of every folder, down to ``depth`` levels, whose source is gone."""
    level = [prefix]
    for _ in range(depth):
        below = []
        for folder in level:
            try:
                entries = list(os.scandir(folder))
            except OSError:
                continue
            for entry in entries:
                if not entry.is_dir(follow_symlinks=False):
                    continue
                if os.path.isdir(entry.path[len(prefix):]):
                    below.append(entry.path)
                else:
                    shutil.rmtree(entry.path, ignore_errors=True)
        level = below


@pytest.fixture
def without_auto_static():
    """JAX's rule for the test: a Python argument the trace needs as a value is an error asking
    for static_argnames, not made static on demand (jitcore/static_on_demand.py)."""
    from jitcore import config

    config.auto_static = False
    try:
        yield
    finally:
        config.auto_static = True
