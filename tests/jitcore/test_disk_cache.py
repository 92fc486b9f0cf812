"""The persistent disk cache (issue 13 item 3, ``jitcore/disk_cache.py``): a new process loads
what an earlier one compiled and runs no LLVM; bad entries are rebuilt, never loaded; the
directory is its owner's alone; concurrent writers; the switches; eviction; the command line.

Results are always checked against NumPy: code from disk must compute what compiled code does.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import warnings

import numpy as np
import pytest

import jitcore as jc
import jitcore.numpy as jnp
from jitcore import config, disk_cache, native_call, plan_file
from jitcore.errors import ConfigError, DiskCacheWarning

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def g(x, y):
    return jnp.tanh(x * 2 + y)


def args(n=8, dtype=np.float32):
    x = np.linspace(-1.5, 1.5, n).astype(dtype)
    return x, x[::-1].copy()


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    """A cache directory of this test's own, that does not exist yet."""
    folder = str(tmp_path / "cache")
    monkeypatch.setattr(config, "cache_dir", folder)
    monkeypatch.setattr(config, "disk_cache", True)
    return folder


def entries(folder):
    if not os.path.isdir(folder):
        return []
    return sorted(n for n in os.listdir(folder) if n.endswith(disk_cache.SUFFIX))


def run_python(code: str, folder: str, **env) -> str:
    """Run ``code`` in a fresh interpreter on this checkout with cache directory ``folder``."""
    environ = dict(os.environ, PYTHONPATH=ROOT, JITCORE_CACHE_DIR=folder, **env)
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          env=environ, cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout


def fresh_call(folder, fn=g, n=8):
    """Call a new jitted ``fn`` (this process, ``folder`` as the cache); its result and cache_info."""
    jitted = jc.jit(fn)
    x, y = args(n)
    got = jitted(x, y)
    np.testing.assert_allclose(got, np.tanh(x * 2 + y), rtol=2e-6, atol=2e-6)
    return jitted.cache_info()


# -- a new process loads instead of compiling ------------------------------------------------
PROGRAM = """
    import numpy as np
    import jitcore as jc, jitcore.numpy as jnp

    @jc.jit
    def g(x, y):
        return jnp.tanh(x * 2 + y)

    for n in (8, 300_000):  # 300,000: split on threads, so the thread runtime is loaded too
        x = np.linspace(-1.5, 1.5, n).astype(np.float32)
        y = x[::-1].copy()
        np.testing.assert_allclose(g(x, y), np.tanh(x * 2 + y), rtol=2e-6, atol=2e-6)
    print(g.cache_info().compiles, g.cache_info().from_disk)
"""

NO_LLVM = """
    import llvmlite.binding as llvm
    from jitcore import passes
    from jitcore.codegen.cpu import target

    def refuse(*args, **kwargs):
        raise AssertionError("LLVM or the pass pipeline ran")

    # Every way to LLVM's optimizer and code generator, and the pass pipeline, refuses.
    llvm.TargetMachine.emit_object = llvm.TargetMachine.emit_assembly = refuse
    target.optimize = target.compile_ir = refuse
    passes.PassManager.run = refuse
"""


def test_a_new_process_loads_compiled_code_from_disk_and_runs_no_llvm(cache_dir):
    assert run_python(PROGRAM, cache_dir).split() == ["2", "0"]
    stored = entries(cache_dir)
    # two plans and the thread runtime's object code: run_chunks, the launch, a chunk worker
    assert len(stored) == 5
    assert run_python(NO_LLVM + PROGRAM, cache_dir).split() == ["2", "2"]
    assert entries(cache_dir) == stored


def test_the_refusals_of_the_no_llvm_check_do_refuse(cache_dir):
    """The check above could not fail if its patches missed the compiler: a cold process under
    them must fail."""
    environ = dict(os.environ, PYTHONPATH=ROOT, JITCORE_CACHE_DIR=cache_dir)
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(NO_LLVM + PROGRAM)], capture_output=True,
                          text=True, env=environ, cwd=ROOT, timeout=300)
    assert done.returncode != 0 and "LLVM or the pass pipeline ran" in done.stderr


def test_a_hit_in_this_process_counts_from_disk_and_computes_the_same(cache_dir):
    first = fresh_call(cache_dir)
    assert (first.compiles, first.from_disk) == (1, 0)
    assert len(entries(cache_dir)) == 1
    second = fresh_call(cache_dir)  # a new jitted function: its memory cache is empty
    assert (second.compiles, second.from_disk) == (1, 1)
    assert tuple(second) == (0, 1, 1, 1)  # the four counts still unpack as before
    assert "from_disk=1" in repr(second)


def test_a_folder_kept_in_memory_makes_no_file_and_hits_through_the_same_checks(cache_dir, monkeypatch):
    """``keep_in_memory`` (the test suite's own cache): no file, a hit in this process is read
    back and checked as from disk, a damaged entry is rebuilt, the cap and the commands apply."""
    memory = disk_cache.keep_in_memory(cache_dir)
    try:
        assert fresh_call(cache_dir).from_disk == 0 and entries(cache_dir) == []
        (path,) = [p for p in memory if p.endswith(disk_cache.SUFFIX)]
        assert disk_cache.info().entries == 1
        assert fresh_call(cache_dir).from_disk == 1
        memory[path] = memory[path][:-1] + bytes([memory[path][-1] ^ 1])  # one bit flipped
        assert fresh_call(cache_dir).from_disk == 0  # the digest caught it: compiled and stored anew
        assert fresh_call(cache_dir).from_disk == 1
        monkeypatch.setattr(config, "cache_max_bytes", len(memory[path]) * 3 // 2)
        fresh_call(cache_dir, fn=lambda x, y: jnp.tanh(y + x * 2))  # another plan
        assert path not in memory and disk_cache.info().entries == 1  # the oldest went
        assert disk_cache.cache_clear() == 1 and memory == {} and entries(cache_dir) == []
    finally:
        disk_cache._in_memory.pop(os.path.abspath(cache_dir), None)


# -- the stored plan --------------------------------------------------------------------------
def _plans():
    """Plans of several shapes: loops, a callback, a BLAS call, constants of many dtypes, a
    strided argument, an index check."""
    def loop(x):
        return jc.fori_loop(0, 5, lambda i, c: c * 0.5 + x, x)

    def constants(x):
        return (x + np.arange(6.0).reshape(2, 3), np.array([1 + 2j, 3j]) * 2, np.array([True, False]) & True,
                np.int8(3) + np.arange(4, dtype=np.int8))

    def callback(x):
        jc.debug_callback(lambda v: None, x)
        return x + 1

    def matmul(a, b):
        return a @ b

    def gather(x, i):
        return x[i]

    m = np.ones((2, 3))
    cases = [(loop, (np.ones(4),)), (constants, (m,)), (callback, (np.ones(3),)),
             (matmul, (np.ones((8, 8)), np.ones((8, 8)))), (g, (m[:, ::2], m[:, 1:])),
             (gather, (np.arange(5.0), np.array([0, 4, 2])))]
    return [jc.jit(f).lower(*a).plan() for f, a in cases]


def test_a_plan_survives_the_file_format_unchanged():
    for plan in _plans():
        data = plan_file.encode(plan)
        back = plan_file.decode(data)
        assert plan_file.encode(back) == data
        for field in ("target", "symbol", "arg_strided", "header", "has_status", "buffers", "outputs",
                      "launches", "program", "callbacks", "llvm_ir", "object_code"):
            assert getattr(back, field) == getattr(plan, field), field
        for a, b in zip(back.constants, plan.constants):
            assert a.dtype == b.dtype and a.shape == b.shape and a.flags.c_contiguous
            np.testing.assert_array_equal(a, b)


def test_the_file_format_makes_only_plan_classes():
    text = json.dumps({"plan": {"class": "Popen", "fields": {"args": ["true"]}}, "blobs": []}).encode()
    with pytest.raises(plan_file.FormatError):
        plan_file.decode(len(text).to_bytes(8, "little") + text)
    with pytest.raises(plan_file.FormatError):
        plan_file.decode(b"\x05\x00\x00\x00\x00\x00\x00\x00[1,2]")
    with pytest.raises(plan_file.FormatError):
        plan_file.decode(b"\xff" * 8)


def test_plans_that_differ_get_different_keys():
    x, y = args()
    base = jc.jit(g).lower(x, y)
    specs = base._specs
    text = jc.ir.print_op(base.traced)
    options = base.jitted.options
    key = disk_cache.plan_key(text, ("C", "C"), options)
    assert key == disk_cache.plan_key(text, ("C", "C"), options)
    others = [disk_cache.plan_key(text, ("C", layout), options) for layout in ("strided", "F", "reversed")]
    others += [disk_cache.plan_key(text.replace("2.0", "2.5"), ("C", "C"), options),
               disk_cache.plan_key(text, ("C", "C"), jc.jit(g, fastmath=True).options),
               disk_cache.plan_key(text, ("C", "C"), jc.jit(g, pipeline="kernelize").options)]
    assert len({key, *others}) == 7
    assert len(specs) == 2


def test_every_module_that_makes_code_is_in_jitcores_version():
    """The version covers each module of the compiler layers, autograph and the lowering
    modules of jitcore (the tracer re-runs every call: its output is the key)."""
    covered = {os.path.relpath(path, ROOT) for path, _, _ in disk_cache.versioned_files()}
    wanted = {os.path.join("jitcore", name) for name in disk_cache.VERSIONED_MODULES}
    for layer in ("ir", "passes", "codegen", os.path.join("jitcore", "autograph")):
        for folder, _, names in os.walk(os.path.join(ROOT, layer)):
            wanted |= {os.path.relpath(os.path.join(folder, n), ROOT) for n in names if n.endswith(".py")}
    assert os.path.join("codegen", "cpu", "object_loader.py") in wanted
    assert wanted <= covered


def test_an_edited_added_or_removed_module_is_a_new_version(monkeypatch):
    files = disk_cache.versioned_files()
    version = disk_cache._version(files)
    assert disk_cache._version(files[::-1]) == version  # the order the folders list them in
    at = next(i for i, (path, _, _) in enumerate(files) if path.endswith(os.path.join("cpu", "backend.py")))
    path, size, mtime = files[at]
    edited = [files[:at] + [(path, size + 1, mtime)] + files[at + 1:],
              files[:at] + [(path, size, mtime + 1)] + files[at + 1:],
              files[:at] + files[at + 1:],
              files + [(os.path.join(os.path.dirname(path), "new.py"), 1, 1)]]
    assert len({version, *(disk_cache._version(e) for e in edited)}) == 5
    # ...and a new version is a new key for every plan.
    x, y = args()
    text, options = jc.ir.print_op(jc.jit(g).lower(x, y).traced), jc.jit(g).options
    key = disk_cache.plan_key(text, ("C", "C"), options)
    monkeypatch.setattr(disk_cache, "source_version", lambda: disk_cache._version(edited[0]))
    assert disk_cache.plan_key(text, ("C", "C"), options) != key


# -- bad entries ------------------------------------------------------------------------------
def _only_entry(folder):
    (name,) = entries(folder)
    return os.path.join(folder, name)


def _corrupt(data: bytes) -> bytes:
    middle = len(data) // 2
    return data[:middle] + bytes([data[middle] ^ 0x40]) + data[middle + 1:]


@pytest.mark.parametrize("damage", ["flipped byte", "truncated", "empty", "old format", "bad payload"])
def test_a_damaged_entry_is_ignored_and_rebuilt(cache_dir, damage):
    fresh_call(cache_dir)
    path = _only_entry(cache_dir)
    good = open(path, "rb").read()
    key = os.path.basename(path)[: -len(disk_cache.SUFFIX)]
    if damage == "flipped byte":
        bad = _corrupt(good)
    elif damage == "truncated":
        bad = good[: len(good) * 2 // 3]
    elif damage == "empty":
        bad = b""
    elif damage == "old format":  # whole and with a right digest, of another format version
        disk_cache._write(cache_dir, key, disk_cache.PLAN, good[len(disk_cache.MAGIC) + 32 + 4 + 64:])
        bad = b"jitcore cache 0\n" + open(path, "rb").read()[len(disk_cache.MAGIC):]
    else:  # a right digest over a payload that is no plan
        disk_cache._write(cache_dir, key, disk_cache.PLAN, b"\x02\x00\x00\x00\x00\x00\x00\x00{}")
        bad = open(path, "rb").read()
    with open(path, "wb") as f:
        f.write(bad)
    info = fresh_call(cache_dir)
    assert (info.compiles, info.from_disk) == (1, 0)  # compiled again, not loaded
    assert open(path, "rb").read() == good  # and written again
    assert fresh_call(cache_dir).from_disk == 1


def test_a_foreign_entry_under_this_key_is_ignored(cache_dir):
    """Another function's whole, valid entry copied over this one's: its key says it is not."""
    def other(x, y):
        return jnp.tanh(x * 3 + y)

    fresh_call(cache_dir)
    path = _only_entry(cache_dir)
    good = open(path, "rb").read()
    jc.jit(other)(*args())
    (other_path,) = set(os.path.join(cache_dir, n) for n in entries(cache_dir)) - {path}
    shutil.copyfile(other_path, path)
    info = fresh_call(cache_dir)  # would compute 3x + y with the other's code
    assert info.from_disk == 0
    assert open(path, "rb").read() == good


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root to chown")
def test_an_entry_owned_by_another_user_is_ignored(cache_dir):
    fresh_call(cache_dir)
    os.chown(_only_entry(cache_dir), 65534, 65534)
    assert fresh_call(cache_dir).from_disk == 0


# -- the directory ----------------------------------------------------------------------------
@pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")
def test_the_directory_is_made_for_its_owner_alone(cache_dir):
    fresh_call(cache_dir)
    info = os.stat(cache_dir)
    assert info.st_mode & 0o777 == 0o700 and info.st_uid == os.geteuid()
    assert os.stat(_only_entry(cache_dir)).st_mode & 0o077 == 0


@pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")
@pytest.mark.parametrize("mode", [0o777, 0o720, 0o702])
def test_a_directory_others_can_write_to_is_not_used(cache_dir, mode):
    os.makedirs(cache_dir)
    fresh_call(cache_dir)  # compiled with the directory still safe
    os.chmod(cache_dir, mode)
    disk_cache._checked.clear()  # as a new process would see it
    with pytest.warns(DiskCacheWarning, match="others can write to it"):
        info = fresh_call(cache_dir)
    assert info.from_disk == 0  # nothing is read from it
    before = entries(cache_dir)
    with warnings.catch_warnings():
        warnings.simplefilter("error", DiskCacheWarning)  # once per directory
        fresh_call(cache_dir, fn=lambda x, y: jnp.tanh(x * 2 + y))
    assert entries(cache_dir) == before  # nor written to
    assert disk_cache.cache_clear() == 0 and entries(cache_dir) == before  # nor cleared
    os.chmod(cache_dir, 0o700)
    disk_cache._checked.clear()


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root to chown")
def test_a_directory_of_another_user_is_not_used(cache_dir):
    os.makedirs(cache_dir, mode=0o700)
    os.chown(cache_dir, 65534, 65534)
    with pytest.warns(DiskCacheWarning, match="belongs to another user"):
        fresh_call(cache_dir)
    assert entries(cache_dir) == []
    disk_cache._checked.clear()


# -- the switches -----------------------------------------------------------------------------
def test_jit_cache_false_neither_reads_nor_writes(cache_dir):
    jitted = jc.jit(g, cache=False)
    x, y = args()
    np.testing.assert_allclose(jitted(x, y), np.tanh(x * 2 + y), rtol=2e-6, atol=2e-6)
    assert entries(cache_dir) == []
    fresh_call(cache_dir)
    again = jc.jit(g, cache=False)
    again(x, y)
    assert again.cache_info().from_disk == 0


def test_config_disk_cache_false_turns_it_off(cache_dir, monkeypatch):
    monkeypatch.setattr(config, "disk_cache", False)
    fresh_call(cache_dir)
    assert entries(cache_dir) == []
    assert disk_cache.directory() is None


def test_jitcore_cache_0_turns_it_off_in_a_new_process(cache_dir):
    assert run_python(PROGRAM, cache_dir, JITCORE_CACHE="0").split() == ["2", "0"]
    assert entries(cache_dir) == []


def test_the_environment_settings_are_read_and_checked():
    assert config.cache_enabled_from_environment({}) is True
    for off in ("0", "off", "False", " no "):
        assert config.cache_enabled_from_environment({"JITCORE_CACHE": off}) is False
    with pytest.raises(ConfigError, match="JITCORE_CACHE"):
        config.cache_enabled_from_environment({"JITCORE_CACHE": "maybe"})
    assert config.cache_dir_from_environment({"JITCORE_CACHE_DIR": "/x/y"}) == os.path.abspath("/x/y")
    home = os.path.expanduser("~")
    assert config.cache_dir_from_environment({}, "linux") == os.path.join(home, ".cache", "jitcore")
    assert config.cache_dir_from_environment({"XDG_CACHE_HOME": "/xdg"}, "linux") == "/xdg/jitcore"
    assert config.cache_dir_from_environment({"XDG_CACHE_HOME": "rel"}, "linux") == os.path.join(
        home, ".cache", "jitcore")
    assert config.cache_dir_from_environment({}, "darwin") == os.path.join(
        home, "Library", "Caches", "jitcore")
    assert config.cache_dir_from_environment({"LOCALAPPDATA": "/l"}, "win32") == os.path.join(
        "/l", "jitcore", "Cache")
    assert config.cache_max_bytes_from_environment({}) == config.DEFAULT_CACHE_MAX_BYTES
    assert config.cache_max_bytes_from_environment({"JITCORE_CACHE_MAX_BYTES": "512M"}) == 512 << 20
    assert config.cache_max_bytes_from_environment({"JITCORE_CACHE_MAX_BYTES": "1000"}) == 1000
    for bad in ("lots", "-5", "1.5G", "M"):
        with pytest.raises(ConfigError, match="JITCORE_CACHE_MAX_BYTES"):
            config.cache_max_bytes_from_environment({"JITCORE_CACHE_MAX_BYTES": bad})
    for name, bad in (("disk_cache", 1), ("cache_dir", ""), ("cache_max_bytes", -1)):
        with pytest.raises(ConfigError, match=name):
            setattr(config, name, bad)


# -- concurrent writers -----------------------------------------------------------------------
WRITER = """
    import sys
    from jitcore import config, disk_cache
    folder, me = config.cache_dir, int(sys.argv[1])
    for i in range(300):
        payload = bytes([me]) * (1000 + 7919 * ((me + i) % 13))
        disk_cache._write(folder, "ab" * 32, disk_cache.PLAN, payload)
"""


def test_processes_writing_one_entry_at_once_leave_only_whole_entries(cache_dir):
    """Four processes rewrite one key with payloads of different sizes while this one reads it:
    every read is one writer's whole payload, never a mix or a piece."""
    os.makedirs(cache_dir, mode=0o700)
    environ = dict(os.environ, PYTHONPATH=ROOT, JITCORE_CACHE_DIR=cache_dir)
    writers = [subprocess.Popen([sys.executable, "-c", textwrap.dedent(WRITER), str(me)], env=environ,
                                cwd=ROOT) for me in range(1, 5)]
    reads = 0
    while any(w.poll() is None for w in writers):
        payload = disk_cache._read(cache_dir, "ab" * 32, disk_cache.PLAN)
        if payload is not None:
            reads += 1
            assert len(set(payload)) == 1 and (len(payload) - 1000) % 7919 == 0
    assert all(w.wait() == 0 for w in writers)
    assert disk_cache._read(cache_dir, "ab" * 32, disk_cache.PLAN) is not None
    assert [n for n in os.listdir(cache_dir) if n.startswith(disk_cache.TEMP_PREFIX)] == []
    assert reads > 0


def test_processes_compiling_at_once_all_compute_right_and_share_entries(cache_dir):
    # (100 and 777 points: one size class, above the tiny kernels', below the threads' threshold)
    program = PROGRAM.replace("for n in (8, 300_000)", "for n in (100, 777)")
    environ = dict(os.environ, PYTHONPATH=ROOT, JITCORE_CACHE_DIR=cache_dir)
    procs = [subprocess.Popen([sys.executable, "-c", textwrap.dedent(program)], env=environ, cwd=ROOT,
                              stdout=subprocess.PIPE, text=True) for _ in range(3)]
    assert all(p.wait(timeout=300) == 0 for p in procs)
    # two plans, the object code that 777 reused from 100 (a size-generic function's) and the
    # runtime's code that it calls above the threshold (run_chunks, the launch, a launcher)
    assert len(entries(cache_dir)) == 6
    assert run_python(NO_LLVM + program, cache_dir).split() == ["2", "2"]


# -- size cap, clearing, the command line -----------------------------------------------------
def test_eviction_removes_the_least_recently_used_entries(cache_dir):
    os.makedirs(cache_dir, mode=0o700)
    keys = [f"{i:064x}" for i in range(6)]
    for i, key in enumerate(keys):
        disk_cache._write(cache_dir, key, disk_cache.OBJECT, bytes(1000))
        os.utime(os.path.join(cache_dir, key + disk_cache.SUFFIX), (1000 + i, 1000 + i))
    assert disk_cache._read(cache_dir, keys[0], disk_cache.OBJECT) is not None  # used now: kept
    size = os.path.getsize(os.path.join(cache_dir, keys[0] + disk_cache.SUFFIX))
    stale = os.path.join(cache_dir, disk_cache.TEMP_PREFIX + "killed")
    open(stale, "wb").close()
    os.utime(stale, (1, 1))
    left = disk_cache.evict(cache_dir, cap=4 * size, down_to=3 * size)
    assert left == 3 * size
    assert entries(cache_dir) == sorted(k + disk_cache.SUFFIX for k in (keys[0], keys[4], keys[5]))
    assert not os.path.exists(stale)


def test_the_cap_holds_as_functions_are_compiled(cache_dir, monkeypatch):
    fresh_call(cache_dir)
    size = os.path.getsize(_only_entry(cache_dir))
    monkeypatch.setattr(config, "cache_max_bytes", int(size * 3.5))
    for k in range(6):
        jc.jit(lambda x, k=k: x * k + 1)(np.ones(3))
        assert sum(os.path.getsize(os.path.join(cache_dir, n)) for n in entries(cache_dir)) <= size * 3.5
    assert len(entries(cache_dir)) >= 2


def test_cache_clear_removes_every_entry(cache_dir):
    fresh_call(cache_dir)
    jc.jit(lambda x: x + 1)(np.ones(3))
    assert len(entries(cache_dir)) == 2
    assert jc.cache_clear() == 2
    assert entries(cache_dir) == []
    assert fresh_call(cache_dir).from_disk == 0


def test_python_m_jitcore_cache_info_and_clear(cache_dir):
    fresh_call(cache_dir)
    out = run_python("from jitcore.__main__ import command_line; command_line(['cache', 'info'])", cache_dir)
    assert f"directory: {cache_dir}" in out and "state:     on" in out and "entries:   1," in out
    done = subprocess.run([sys.executable, "-m", "jitcore", "cache", "clear"], capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=ROOT, JITCORE_CACHE_DIR=cache_dir), cwd=ROOT)
    assert done.returncode == 0 and "removed 1 entry" in done.stdout
    assert entries(cache_dir) == []
    out = run_python("from jitcore.__main__ import command_line; command_line(['cache', 'info'])", cache_dir,
                     JITCORE_CACHE="0")
    assert "state:     off" in out and "entries:   0," in out


def test_the_test_run_itself_uses_a_temporary_cache():
    """tests/conftest.py: the run's cache is an empty temporary directory, not the user's."""
    folder = os.environ["JITCORE_CACHE_DIR"]
    assert config.cache_dir == folder
    assert os.path.commonpath([folder, tempfile.gettempdir()]) == tempfile.gettempdir()
    assert entries(folder) == []


def test_copies_and_pickles_keep_cache_false():
    import copy
    import pickle

    jitted = jc.jit(np.negative, cache=False)  # a module-level function: pickled by reference
    assert copy.copy(jitted).disk_cache is False and copy.deepcopy(jitted).disk_cache is False
    assert pickle.loads(pickle.dumps(jitted)).disk_cache is False
    assert pickle.loads(pickle.dumps(jc.jit(np.negative))).disk_cache is True


# -- converted code (autograph) ---------------------------------------------------------------
BRANCHY = """
    import sys
    import numpy as np
    import jitcore as jc
    from jitcore.autograph import convert

    if sys.argv[1:] == ["refuse"]:
        def refuse(fun):
            raise AssertionError("a function was converted again")
        convert._factory = refuse

    @jc.jit
    def h(x):
        if x.sum() > 0:  # on a traced value: runs only converted
            return x * 2
        return -x

    x = np.linspace(-1.0, 2.0, 8)
    np.testing.assert_array_equal(h(x), x * 2)
    np.testing.assert_array_equal(h(-x), x)
    print(h.cache_info().from_disk)
"""


def run_file(code: str, folder: str, *argv) -> str:
    """Run ``code`` as a program file (autograph reads its source; ``-c`` code has none)."""
    path = os.path.join(os.path.dirname(folder), "program.py")
    with open(path, "w") as f:
        f.write(textwrap.dedent(code))
    environ = dict(os.environ, PYTHONPATH=ROOT, JITCORE_CACHE_DIR=folder)
    done = subprocess.run([sys.executable, path, *argv], capture_output=True, text=True, env=environ,
                          cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout


def code_files(folder):
    return sorted(n for n in os.listdir(folder) if n.endswith(disk_cache.CODE_SUFFIX))


def test_a_new_process_loads_converted_code_and_converts_nothing(cache_dir):
    assert run_file(BRANCHY, cache_dir).split() == ["0"]
    # h's plan, and the native call's dispatcher (made on h's second, cached call)
    assert len(code_files(cache_dir)) == 1 and len(entries(cache_dir)) == 1 + native_call.AVAILABLE
    assert run_file(BRANCHY, cache_dir, "refuse").split() == ["1"]
    for name in code_files(cache_dir):  # damaged: ignored, converted again, written again
        path = os.path.join(cache_dir, name)
        good = open(path, "rb").read()
        with open(path, "wb") as f:
            f.write(_corrupt(good))
    assert run_file(BRANCHY, cache_dir).split() == ["1"]
    assert open(path, "rb").read() == good
    # The refusal does refuse: with no stored code the program fails.
    assert jc.cache_clear() == 1 + native_call.AVAILABLE and os.listdir(cache_dir) == []
    with pytest.raises(AssertionError, match="converted again"):
        run_file(BRANCHY, cache_dir, "refuse")


def test_converted_code_is_stored_by_cache_true_functions_only(cache_dir):
    def fresh(x):  # not converted before in this process
        return x * 3 if x.shape[0] > 2 else x

    jc.jit(fresh, cache=False)(np.ones(4))
    assert not os.path.isdir(cache_dir) or os.listdir(cache_dir) == []


# -- what the code read besides its arguments -------------------------------------------------
# A global scalar (a constant of the traced code), a global array that meets a traced value (a
# call-time input, its shape in the traced code) and a global array that only tracing reads
# (frozen: its sum is a constant), each set from the command line in a new process.
GLOBALS = """
    import sys
    import numpy as np
    import jitcore as jc

    SCALE = float(sys.argv[1])
    W = np.arange(float(sys.argv[2]))
    B = np.full(300, float(sys.argv[3]))

    @jc.jit
    def f(x):
        return x[: W.shape[0]] * SCALE + W + B.sum()

    x = np.linspace(-1.0, 1.0, 8)
    np.testing.assert_allclose(f(x), x[: W.shape[0]] * SCALE + W + B.sum())
    print(f.cache_info().compiles, f.cache_info().from_disk)
"""


def test_a_new_process_with_other_global_values_compiles_them_and_computes_right(cache_dir):
    assert run_file(GLOBALS, cache_dir, "2", "4", "1").split() == ["1", "0"]
    # Each run below asserts its own result against NumPy; none may load another's code.
    assert run_file(GLOBALS, cache_dir, "3", "4", "1").split() == ["1", "0"]  # the scalar
    assert run_file(GLOBALS, cache_dir, "2", "6", "1").split() == ["1", "0"]  # the array's shape
    # B is an input where the code reads it (session 47): B.sum() is computed at each call, so
    # other values of B load the same code
    assert run_file(GLOBALS, cache_dir, "2", "4", "5").split() == ["1", "1"]
    assert run_file(GLOBALS, cache_dir, "2", "4", "1").split() == ["1", "1"]  # the first, loaded


BODY = """
    import numpy as np
    import jitcore as jc

    @jc.jit
    def f(x):
        return x * FACTOR

    x = np.linspace(-1.0, 1.0, 8)
    np.testing.assert_array_equal(f(x), x * FACTOR)
    print(f.cache_info().compiles, f.cache_info().from_disk)
"""


def test_a_changed_function_body_under_the_same_name_misses(cache_dir):
    """The same file, function name and line, another body: its code is compiled anew."""
    assert run_file(BODY.replace("FACTOR", "2"), cache_dir).split() == ["1", "0"]
    assert run_file(BODY.replace("FACTOR", "3"), cache_dir).split() == ["1", "0"]
    assert run_file(BODY.replace("FACTOR", "2"), cache_dir).split() == ["1", "1"]


# -- the math library's definitions, kept for later processes ---------------------------------
def test_the_math_library_definitions_are_read_back(cache_dir, monkeypatch):
    """The definitions of a set of math functions, built in Python on a process's first use
    (up to tens of milliseconds), are kept in the disk cache: a later process (here: the
    in-memory cache cleared) reads the same text and builds nothing."""
    from jitcore.codegen import mathlib
    from jitcore.codegen.cpu import target

    names = ("jitcore_math_avx512_exp_f32", "jitcore_math_avx512_exp_v8f32")
    target._isa_definitions.cache_clear()
    try:
        built = target._isa_definitions(names, 256)
        assert built is not None and "define linkonce_odr" in built
        target._isa_definitions.cache_clear()

        def refused(*args):
            raise AssertionError("built again")

        monkeypatch.setattr(mathlib, "isa_definitions", refused)
        assert target._isa_definitions(names, 256) == built
        with pytest.raises(AssertionError, match="built again"):  # another width: another key
            target._isa_definitions(names, 512)
    finally:
        target._isa_definitions.cache_clear()


# -- the host's description, kept for the boot ------------------------------------------------
@pytest.mark.skipif(not os.path.exists("/proc/sys/kernel/random/boot_id"), reason="Linux's boot id")
def test_the_host_description_is_read_back_for_this_boot_only(cache_dir, monkeypatch, tmp_path):
    from jitcore.codegen.cpu import target

    target.forget_host()
    try:
        asked = target.magic()  # not kept yet: LLVM's answer, then kept
        assert asked == target._host_machine()
        assert [n for n in os.listdir(cache_dir) if n.endswith(disk_cache.HOST_SUFFIX)]
        # A description kept under this boot's key is the one used (a forged one shows it).
        forged = ("a-triple", "a-cpu", "+a-feature")
        target.HOST_MEMO.store(target._memo_key(), "\n".join(forged))
        target.forget_host()
        assert target.magic() == forged
        # Malformed: not used.
        target.HOST_MEMO.store(target._memo_key(), "a-triple\na-cpu")
        target.forget_host()
        assert target.magic() == asked
        # Another boot (or another override, or LLVM) is another key.
        target.HOST_MEMO.store(target._memo_key(), "\n".join(forged))
        other_boot = tmp_path / "boot_id"
        other_boot.write_text("00000000-0000-0000-0000-000000000000\n")
        monkeypatch.setattr(target, "BOOT_ID", str(other_boot))
        target.forget_host()
        assert target.magic() == asked
    finally:
        target.forget_host()
