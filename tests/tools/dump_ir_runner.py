"""tools/dump-ir's ``main`` called in-process (no subprocess: cheap), its output captured."""

from __future__ import annotations

import contextlib
import importlib.machinery
import importlib.util
import io
import re
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _load():
    loader = importlib.machinery.SourceFileLoader("dump_ir_tool", str(REPO / "tools" / "dump-ir"))
    spec = importlib.util.spec_from_loader("dump_ir_tool", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


TOOL = _load()


def run(*argv: str) -> tuple[int, str, str]:
    """(exit status, stdout, stderr) of ``dump-ir argv``. The tool imports the user's files,
    as a process of its own would: ``sys.path`` and the modules from temporary directories are
    put back afterwards, so that one test's ``mydata.py`` is not another's."""
    out, err = io.StringIO(), io.StringIO()
    path, modules = list(sys.path), set(sys.modules)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = TOOL.main(list(argv))
    finally:
        sys.path[:] = path
        for name in set(sys.modules) - modules:
            if (getattr(sys.modules[name], "__file__", None) or "").startswith(tempfile.gettempdir()):
                del sys.modules[name]
    return status, out.getvalue(), err.getvalue()


def ok(*argv: str) -> str:
    status, out, err = run(*argv)
    assert status == 0, err
    return out


def refused(*argv: str) -> str:
    """The one-line error of a refused command line (exit status 2, nothing on stdout)."""
    status, out, err = run(*argv)
    assert status == 2 and out == "", out
    assert err.startswith("dump-ir: error: ") and err.count("\n") == 1, err
    return err


def stage(out: str, name: str) -> str:
    """The text printed under ``// ===== stage: name =====``."""
    return re.split(r"^// =====.*$", out.split(f"// ===== stage: {name} =====\n", 1)[1], maxsplit=1,
                    flags=re.M)[0]


def readme_block(name: str) -> str:
    """The README's Python code block that defines ``name``."""
    blocks = re.findall(r"```python\n(.*?)```", (REPO / "README.md").read_text(), re.S)
    return next(b for b in blocks if f"def {name}(" in b)
